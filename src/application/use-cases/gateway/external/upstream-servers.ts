import { clip } from '../../../../domain/errors';
import { ResourceRecord, topLevel } from '../../../../domain/resource/resource-record';
import { withoutSecrets } from '../../../../domain/resource/without-secrets';
import { MAX_LISTED_RECORDS, ResourceStore } from '../../../ports/resource-store.port';
import { UpstreamServer } from '../../../ports/upstream-mcp.port';
import { UpstreamReplyError } from '../../../ports/upstream-content.port';
import { UpstreamRefusal } from '../../../ports/upstream-refusal';
import { authOf } from './server-auth';
import { UpstreamView } from './upstream-view';

/** Where a user's upstream MCP servers are stored: mcp_servers records. */
export const SERVERS = topLevel('mcp_servers');
/** Upstream error texts can be a whole reply long. */
const MAX_SHOWN_CHARS = 300;

/** Why a record whose header values did not decrypt is not used: said in general terms, to the caller too. */
export const UNREADABLE_HEADERS = 'the stored header values of this MCP server do not decrypt; its owner must set them again';

/** Why a server whose credential is each caller's own is not contacted where no caller's credential applies. */
export const PER_USER_AUTH =
  "this MCP server takes each caller's own credential: its tools, resources and prompts are served on its users' own calls, not its subscriptions or notifications";

/**
 * Whether keygate may contact the record's server with the record alone: its
 * header values decrypt and they are its only credential (auth static). A
 * server with a per-user credential is reached only through
 * UpstreamCredentials, for one caller.
 */
export function reachableAsRegistered(record: ResourceRecord): boolean {
  return !record.unreadableSecrets && authOf(record.data).type === 'static';
}

/**
 * The server a record registers, with the record's headers; an UpstreamRefusal
 * when its header values did not decrypt, so it is never contacted without
 * them, and (unless `perUser`, for UpstreamCredentials to add the caller's
 * own) when its auth is not static.
 */
export function toServer(record: ResourceRecord, options: { perUser?: boolean } = {}): UpstreamServer {
  if (record.unreadableSecrets) throw new UpstreamRefusal(UNREADABLE_HEADERS, `record ${record.id}`);
  if (!options.perUser && authOf(record.data).type !== 'static') throw new UpstreamRefusal(PER_USER_AUTH, `record ${record.id}`);
  const data = record.data as { name: string; url: string; headers?: Record<string, string> };
  return { id: record.id, version: record.updatedAt.toISOString(), name: data.name, url: data.url, headers: data.headers ?? {} };
}

/**
 * The user's server of that name, from the list tools/list reads. A listing
 * holds MAX_LISTED_RECORDS servers; a user allowed more (MAX_MCP_SERVERS_PER_USER)
 * may have this one past them, so a full list that lacks it is asked by name.
 */
export async function serverNamed(store: ResourceStore, userId: string, name: string): Promise<ResourceRecord | null> {
  const servers = await store.list(userId, SERVERS);
  const found = servers.find((record) => record.data.name === name);
  if (found !== undefined || servers.length < MAX_LISTED_RECORDS) return found ?? null;
  const [named] = await store.list(userId, SERVERS, { where: { name } });
  return named ?? null;
}

/** The user's servers a view shows: all of them, or its one server when the user has it. */
export async function serversIn(store: ResourceStore, userId: string, view: UpstreamView): Promise<readonly ResourceRecord[]> {
  if (view.server === null) return store.list(userId, SERVERS);
  const record = await serverNamed(store, userId, view.server);
  return record === null ? [] : [record];
}

/**
 * Logs the reason and returns what the caller may see: a refusal in general
 * terms, the upstream's own JSON-RPC error answer with the server's header
 * values taken out, else only that the server did not answer. What the
 * transport said stays out of the answer, and the log line has the header
 * values taken out too: a transport quotes a value it refuses.
 */
export function shownFailure(
  log: (message: string) => void,
  record: ResourceRecord,
  what: string,
  error: unknown,
  /** The caller's own credential the request carried (UpstreamCredentials), taken out as the header values are. */
  secrets: readonly string[] = [],
): string {
  const name = record.data.name as string;
  const detail = error instanceof UpstreamRefusal ? `${error.message} (${error.detail})` : String((error as Error)?.message ?? error);
  log(`MCP server ${name} (${record.id}) ${what}: ${upstreamMessage(record, detail, 2 * MAX_SHOWN_CHARS, secrets)}`);
  if (error instanceof UpstreamRefusal) return error.message;
  if (error instanceof UpstreamReplyError)
    return `The MCP server ${name} answered with an error: ${upstreamMessage(record, error.message, MAX_SHOWN_CHARS, secrets)}`;
  return `The MCP server ${name} did not answer (the reason is logged)`;
}

/** An upstream's own error message, as it may be shown or logged: the server's header values taken out, clipped. */
export function upstreamMessage(record: ResourceRecord, message: string, max = MAX_SHOWN_CHARS, secrets: readonly string[] = []): string {
  return clip(withoutSecrets(message, credentialsOf(record, secrets)), max);
}

/** Every secret a contact with the record's server carries: its header values and the caller's own credential (`secrets`). */
export function credentialsOf(record: ResourceRecord, secrets: readonly string[] = []): string[] {
  const headers = record.data.headers;
  const values =
    typeof headers === 'object' && headers !== null ? Object.values(headers).filter((v): v is string => typeof v === 'string') : [];
  return [...values, ...secrets];
}
