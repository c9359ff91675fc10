import { LoadingCache } from './loading-cache.port';
import { UpstreamContext, UpstreamServer } from './upstream-mcp.port';

/**
 * An item of an upstream's resources/list, resources/templates/list or
 * prompts/list as the MCP client's schema parsed it, relayed as it came
 * (names and URIs are rewritten into keygate's namespace on the way out).
 */
export type UpstreamItem = Record<string, unknown>;

/** An upstream's reply of the three kinds of list keygate federates. */
export type ItemKind = 'resources' | 'resourceTemplates' | 'prompts';

/**
 * One contact with an upstream for its resources, prompts and completions,
 * like UpstreamSession for tools: connected on first use, so listing then
 * reading or getting in the same session is one contact. A server that does
 * not declare the capability has no items and completes nothing. Methods
 * throw UpstreamRefusal when the address or a limit forbids going on,
 * UpstreamReplyError when the upstream answered with a JSON-RPC error, and
 * other errors when it is unreachable or slower than the configured timeout.
 */
export interface UpstreamContentSession {
  /** Every page of that list, within the configured page, count and byte limits. */
  list(kind: ItemKind): Promise<UpstreamItem[]>;
  /** resources/read: `{ contents: [...] }` as it came. */
  readResource(uri: string): Promise<Record<string, unknown>>;
  /** prompts/get: `{ messages: [...] }` as it came. */
  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>>;
  /** completion/complete with the upstream's own ref: `{ completion: { values } }` as it came. */
  complete(params: UpstreamCompletion): Promise<Record<string, unknown>>;
  /** resources/subscribe or resources/unsubscribe of the upstream's URI; false when the upstream does not declare `resources.subscribe`. */
  follow(uri: string, on: boolean): Promise<boolean>;
  /** The capabilities the upstream declared in its initialize (kept with a held session, so a resumed one is not asked again). */
  capabilities(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface UpstreamCompletion {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/** Talks MCP to upstream servers for what is not a tool. */
export interface UpstreamContent {
  /** A contact; with `context.clientSessionId`, within keygate's session with that upstream for that client session. */
  open(server: UpstreamServer, context?: UpstreamContext): UpstreamContentSession;
}

/** What one load of an upstream's list gave: its items, or why it has none to offer. */
export type ItemListing = { ok: true; items: UpstreamItem[] } | { ok: false; shown: string };

/** Item listings by key (kind, record id and version); forgotten when the upstream announces a change. */
export type ItemListCache = LoadingCache<ItemListing>;

/** The upstream answered a request with a JSON-RPC error (not a transport failure): its code and message, for the log. */
export class UpstreamReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamReplyError';
  }
}
