import { ConnectionRequiredError, UpstreamFailedError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ScopeSet } from '../../../../domain/scope';
import { ResourceStore } from '../../../ports/resource-store.port';
import {
  ItemKind,
  ItemListCache,
  ItemListing,
  UpstreamContent,
  UpstreamContentSession,
  UpstreamItem,
  UpstreamReplyError,
} from '../../../ports/upstream-content.port';
import { ClientRelay, ForwardedRequest, UpstreamContext } from '../../../ports/upstream-mcp.port';
import { CallerReach, listKeyOf, UpstreamCaller, UpstreamCredentials } from './upstream-credentials';
import { mayShowAny, ScopeMapField } from './upstream-item-scopes';
import { serverNamed, serversIn, shownFailure, toServer, upstreamMessage } from './upstream-servers';
import { UpstreamName } from './upstream-names';
import { UpstreamView } from './upstream-view';

/** An upstream item with the record of the server it came from. */
export interface ServedItem {
  record: ResourceRecord;
  item: UpstreamItem;
}

/** Which scope map governs each kind of list. */
const FIELD: Record<ItemKind, ScopeMapField> = {
  resources: 'resource_scopes',
  resourceTemplates: 'resource_scopes',
  prompts: 'prompt_scopes',
};

/** The credential a contact carries: how the caller reaches the server (UpstreamCredentials), and the secrets in it. */
export type Reached = Extract<CallerReach, { ok: true }>;

/**
 * The owner's upstream servers' resources, templates and prompts, as the
 * tool directory keeps their tools: each server's list cached by kind,
 * record id and version (an edited record is a new key), so a request
 * contacts a server at most once and a server none of whose items the caller
 * could see not at all. A server that fails or passes a limit loses its items
 * from the lists until its listing expires (logged through `log`). Lists,
 * reads, prompts and completions carry the caller's own credential
 * (UpstreamCredentials, as tools do): a per-user server's lists are the
 * caller's own, and absent for a caller without a credential, whose read or
 * get is a ConnectionRequiredError when they could connect. Subscriptions
 * and notification streams reach static servers only (`open`).
 */
export class UpstreamListings {
  constructor(
    private readonly store: ResourceStore,
    private readonly upstream: UpstreamContent,
    private readonly cache: ItemListCache,
    private readonly log: (message: string) => void,
    /** Without connections, a server with per-user auth is never contacted. */
    private readonly credentials: UpstreamCredentials = new UpstreamCredentials(null, (id) => `/console/#/servers/${id}/connect`),
  ) {}

  /**
   * The items of that kind the caller may see on the view's servers, server by server in the store's order, each server's in its own.
   * `subjectToken`: the OAuth access token the caller came with (token_exchange servers).
   */
  async visible(
    userId: string,
    scopes: ScopeSet,
    kind: ItemKind,
    view: UpstreamView,
    allowed: (record: ResourceRecord, item: UpstreamItem) => boolean,
    subjectToken?: string,
  ): Promise<ServedItem[]> {
    const servers = (await serversIn(this.store, userId, view)).filter((record) => mayShowAny(record, FIELD[kind], scopes));
    const listed = await Promise.all(
      servers.map(async (record) => {
        const reach = await this.reach(record, { userId, subjectToken }, `left out of its ${kind} list`);
        // No credential of this user's: nothing is listed, and nobody else's is used to list it.
        if (!reach.ok) return [];
        const listing = await this.listing(record, kind, reach);
        return listing.ok ? listing.items.filter((item) => allowed(record, item)).map((item) => ({ record, item })) : [];
      }),
    );
    return listed.flat();
  }

  /**
   * A contact with the record's server carrying `caller`'s own credential, as `open` does for a static one. A caller
   * without one gets a ConnectionRequiredError when they could connect, else an UpstreamFailedError saying why.
   */
  async openFor(
    record: ResourceRecord,
    caller: UpstreamCaller,
    clientSessionId?: string,
    forwarded?: ForwardedRequest,
    relayed?: ClientRelay,
  ): Promise<{ session: UpstreamContentSession; reach: Reached }> {
    const reach = await this.reach(record, caller, 'not contacted');
    if (!reach.ok && reach.connectUrl !== undefined) throw new ConnectionRequiredError(String(record.data.name), reach.connectUrl);
    if (!reach.ok) throw new UpstreamFailedError(reach.shown);
    return { session: this.contact(reach, clientSessionId, forwarded, relayed), reach };
  }

  /** A contact carrying the credential `reach` found. */
  contact(reach: Reached, clientSessionId?: string, forwarded?: ForwardedRequest, relayed?: ClientRelay): UpstreamContentSession {
    return this.upstream.open(reach.server, contextOf(clientSessionId, forwarded, relayed));
  }

  /**
   * How the caller reaches the record's server (UpstreamCredentials); a record that cannot be used at all (its secrets
   * did not decrypt, a guarded token endpoint) is a failure shown as such, its reason logged as `what`.
   */
  async reach(record: ResourceRecord, caller: UpstreamCaller, what: string): Promise<CallerReach> {
    try {
      return await this.credentials.reach(record, caller.userId, caller.subjectToken);
    } catch (error) {
      return { ok: false, shown: this.shown(record, what, error) };
    }
  }

  server(userId: string, name: string): Promise<ResourceRecord | null> {
    return serverNamed(this.store, userId, name);
  }

  /** The owner's server a resource URI names as the view shows it, and the URI on that server; null when it names none. */
  async resourceAt(userId: string, view: UpstreamView, uri: string): Promise<(UpstreamName & { record: ResourceRecord }) | null> {
    const target = view.splitUri(uri);
    const record = target === null ? null : await this.server(userId, target.server);
    return target === null || record === null ? null : { ...target, record };
  }

  /** A contact with the record's server; within the client's session when `clientSessionId` names one, carrying what a 2026 client passes on (and its relay). */
  open(record: ResourceRecord, clientSessionId?: string, forwarded?: ForwardedRequest, relayed?: ClientRelay): UpstreamContentSession {
    let server;
    try {
      server = toServer(record);
    } catch (error) {
      // Its header values did not decrypt: the server is not contacted, and only its own answers fail.
      throw new UpstreamFailedError(this.shown(record, 'not contacted', error));
    }
    return this.upstream.open(server, contextOf(clientSessionId, forwarded, relayed));
  }

  /**
   * The record's listing of that kind, made with the credential `reach` carries and cached under its key (a static
   * server's is everyone's, a per-user one's the caller's own); a load reuses `session` when the caller has one, so
   * listing and using are one contact.
   */
  private listing(record: ResourceRecord, kind: ItemKind, reach: Reached, session?: UpstreamContentSession): Promise<ItemListing> {
    return this.cache.get(`${kind}:${reach.listKey}`, async () => {
      const own = session ?? this.contact(reach);
      try {
        return { ok: true, items: await own.list(kind) };
      } catch (error) {
        return { ok: false, shown: this.shown(record, `left out of its ${kind} list`, error, reach.secrets) };
      } finally {
        if (own !== session) await own.close();
      }
    });
  }

  /** Drops the record's resource, template and prompt listings on this replica (the upstream said its lists changed). */
  forget(record: ResourceRecord): void {
    for (const kind of Object.keys(FIELD) as ItemKind[]) this.cache.forget?.(itemListKey(kind, record));
  }

  /** Logs why and returns what the caller may see; `secrets`: the caller's own credential the contact carried, taken out. */
  shown(record: ResourceRecord, what: string, error: unknown, secrets?: readonly string[]): string {
    return shownFailure(this.log, record, what, error, secrets);
  }

  /**
   * Runs `use` in one session with the record's server, carrying `caller`'s
   * own credential, after its listing of `kind` (cached, or read in the same
   * contact) showed an item whose `key` is `value`; null when it did not. A
   * caller without a credential gets what openFor throws; a failed listing is
   * an UpstreamFailedError, an error reply to `use` one that quotes the
   * upstream's message.
   */
  async withListed<T>(
    caller: UpstreamCaller,
    record: ResourceRecord,
    kind: ItemKind,
    key: string,
    value: string,
    method: string,
    use: (session: UpstreamContentSession) => Promise<T>,
    clientSessionId?: string,
    forwarded?: ForwardedRequest,
    relayed?: ClientRelay,
  ): Promise<T | null> {
    const { session, reach } = await this.openFor(record, caller, clientSessionId, forwarded, relayed);
    const name = record.data.name as string;
    try {
      const listing = await this.listing(record, kind, reach, session);
      if (!listing.ok) throw new UpstreamFailedError(listing.shown);
      if (!listing.items.some((item) => item[key] === value)) return null;
      return await use(session);
    } catch (error) {
      if (error instanceof UpstreamFailedError) throw error;
      if (!(error instanceof UpstreamReplyError))
        throw new UpstreamFailedError(this.shown(record, `${method} failed`, error, reach.secrets));
      this.log(
        `MCP server ${name} (${record.id}) answered ${method} with an error: ${upstreamMessage(record, error.message, 600, reach.secrets)}`,
      );
      throw new UpstreamFailedError(
        `The MCP server ${name} answered ${method} with an error: ${upstreamMessage(record, error.message, undefined, reach.secrets)}`,
      );
    } finally {
      await session.close();
    }
  }
}

/** What a contact passes on: the client's session, a 2026 client's request and relay; nothing when there is none of them. */
function contextOf(clientSessionId?: string, forwarded?: ForwardedRequest, relayed?: ClientRelay): UpstreamContext | undefined {
  return clientSessionId === undefined && forwarded === undefined && relayed === undefined
    ? undefined
    : { ...(clientSessionId !== undefined && { clientSessionId }), ...(forwarded !== undefined && { forwarded }), ...relayed };
}

/**
 * Where a record's shared listing of one kind is cached: kind, id and version, so an edited record is a new entry.
 * A per-user server's listings are the caller's own, under `${kind}:` and their CallerReach's listKey.
 */
export function itemListKey(kind: ItemKind, record: ResourceRecord): string {
  return `${kind}:${listKeyOf(record)}`;
}
