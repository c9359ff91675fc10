import { UpstreamFailedError } from '../../../../domain/errors';
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

/**
 * The owner's upstream servers' resources, templates and prompts, as the
 * tool directory keeps their tools: each server's list cached by kind,
 * record id and version (an edited record is a new key), so a request
 * contacts a server at most once and a server none of whose items the caller
 * could see not at all. A server that fails or passes a limit loses its items
 * from the lists until its listing expires (logged through `log`).
 */
export class UpstreamListings {
  constructor(
    private readonly store: ResourceStore,
    private readonly upstream: UpstreamContent,
    private readonly cache: ItemListCache,
    private readonly log: (message: string) => void,
  ) {}

  /** The items of that kind the caller may see on the view's servers, server by server in the store's order, each server's in its own. */
  async visible(
    userId: string,
    scopes: ScopeSet,
    kind: ItemKind,
    view: UpstreamView,
    allowed: (record: ResourceRecord, item: UpstreamItem) => boolean,
  ): Promise<ServedItem[]> {
    const servers = (await serversIn(this.store, userId, view)).filter((record) => mayShowAny(record, FIELD[kind], scopes));
    const listed = await Promise.all(
      servers.map(async (record) => {
        const listing = await this.listing(record, kind);
        return listing.ok ? listing.items.filter((item) => allowed(record, item)).map((item) => ({ record, item })) : [];
      }),
    );
    return listed.flat();
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
    const context: UpstreamContext | undefined =
      clientSessionId === undefined && forwarded === undefined && relayed === undefined
        ? undefined
        : { ...(clientSessionId !== undefined && { clientSessionId }), ...(forwarded !== undefined && { forwarded }), ...relayed };
    return this.upstream.open(server, context);
  }

  /** The record's listing of that kind; a load reuses `session` when the caller has one, so listing and using are one contact. */
  listing(record: ResourceRecord, kind: ItemKind, session?: UpstreamContentSession): Promise<ItemListing> {
    return this.cache.get(itemListKey(kind, record), async () => {
      let own = session;
      try {
        own ??= this.open(record);
        return { ok: true, items: await own.list(kind) };
      } catch (error) {
        return {
          ok: false,
          shown: error instanceof UpstreamFailedError ? error.message : this.shown(record, `left out of its ${kind} list`, error),
        };
      } finally {
        if (own !== undefined && own !== session) await own.close();
      }
    });
  }

  /** Drops the record's resource, template and prompt listings on this replica (the upstream said its lists changed). */
  forget(record: ResourceRecord): void {
    for (const kind of Object.keys(FIELD) as ItemKind[]) this.cache.forget?.(itemListKey(kind, record));
  }

  shown(record: ResourceRecord, what: string, error: unknown): string {
    return shownFailure(this.log, record, what, error);
  }

  /**
   * Runs `use` in one session with the record's server, after its listing of
   * `kind` (cached, or read in the same contact) showed an item whose `key` is
   * `value`; null when it did not. A failed listing is an UpstreamFailedError,
   * an error reply to `use` one that quotes the upstream's message.
   */
  async withListed<T>(
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
    const session = this.open(record, clientSessionId, forwarded, relayed);
    try {
      const listing = await this.listing(record, kind, session);
      if (!listing.ok) throw new UpstreamFailedError(listing.shown);
      if (!listing.items.some((item) => item[key] === value)) return null;
      return await use(session);
    } catch (error) {
      if (error instanceof UpstreamFailedError) throw error;
      if (!(error instanceof UpstreamReplyError)) throw new UpstreamFailedError(this.shown(record, `${method} failed`, error));
      this.log(
        `MCP server ${record.data.name as string} (${record.id}) answered ${method} with an error: ${upstreamMessage(record, error.message, 600)}`,
      );
      throw new UpstreamFailedError(
        `The MCP server ${record.data.name as string} answered ${method} with an error: ${upstreamMessage(record, error.message)}`,
      );
    } finally {
      await session.close();
    }
  }
}

/** Where a record's listing of one kind is cached: kind, id and version, so an edited record is a new entry. */
export function itemListKey(kind: ItemKind, record: ResourceRecord): string {
  return `${kind}:${record.id}@${record.updatedAt.toISOString()}`;
}
