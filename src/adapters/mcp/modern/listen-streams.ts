import { Response } from 'express';
import { ToolChange } from '../../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { allows, mayShowAny, resourceScopes } from '../../../application/use-cases/gateway/external/upstream-item-scopes';
import { NAMESPACED_VIEW, singleServerView, UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { EndpointCapabilities } from '../../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { KeyPrincipal } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { ResourceRecord } from '../../../domain/resource/resource-record';
import { ScopeSet } from '../../../domain/scope';
import { RpcId } from '../json-rpc';
import { serverInfoFor } from '../mcp-server.factory';
import { modernError, sendModernError } from '../era/modern-answer';
import { StreamPlace, StreamPlaces } from '../sessions/stream-places';
import { honouredFlags, LIST_CHANGED_METHOD, LIST_FLAGS, ListenFilter, listenFilterOf } from './listen-filter';
import { ListenStream } from './listen-stream';
import { Contact, ContactHolder, ListenContacts } from './listen-contacts';
import { CHANGE_METHODS, UpstreamNotice } from './listen-upstream';
import { UpstreamListener } from './upstream-listener';

/** What a listen stream needs of the rest of keygate. */
export interface ListenSources {
  capabilities(input: { userId: string; view: UpstreamView }): Promise<EndpointCapabilities>;
  /** A digest of the tools the key sees on the view (ScopeSet.full(): every tool keygate lists there): list_changed goes out when it moves. */
  toolsDigest(userId: string, scopes: ScopeSet, view: UpstreamView): Promise<string>;
  /** Whether the key sees any tool on the view. */
  seesTools(userId: string, scopes: ScopeSet, view: UpstreamView): Promise<boolean>;
  /** The key's scopes as they are now; null once it is not usable (revoked, expired, gone). */
  scopesOf(keyId: string): Promise<ScopeSet | null>;
  /** The owner's servers the view shows. */
  servers(userId: string, view: UpstreamView): Promise<readonly ResourceRecord[]>;
  /** The server a URI names as the view shows it, and the URI there. */
  resourceAt(userId: string, view: UpstreamView, uri: string): Promise<{ record: ResourceRecord; name: string } | null>;
  /** An upstream said a list changed: what keygate caches of it is dropped (and 2025 sessions told, for tools). */
  upstreamChanged(record: ResourceRecord, method: string): Promise<void>;
}

export interface ListenOptions {
  /** resourceSubscriptions one listen may name (MCP_MAX_SUBSCRIPTIONS_PER_SESSION). */
  maxUris: number;
  /** Upstream contacts held for listen streams on this replica (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA). */
  maxUpstreams: number;
  keepAliveMs?: number;
}

export interface ListenRequest {
  principal: KeyPrincipal;
  view?: UpstreamView;
  id: RpcId;
  params: unknown;
}

interface Listening extends ContactHolder {
  stream: ListenStream | null;
  digest: string | null;
  /** Digest comparisons and resyncs run one after the other. */
  queue: Promise<void>;
}

const KEEP_ALIVE_MS = 15_000;

/**
 * keygate's own subscriptions/listen (2026-07-28), per key and endpoint (the
 * SDK's listen router has one bus for every stream, no principal). On this
 * replica it holds each stream, with a stream place of the key's share and
 * the replica's bound (shared with 2025 GET streams), and what feeds it:
 * - keygate's changes, heard by every replica on the change listener (a
 *   key's row, an owner's servers): tools/list_changed when the digest of
 *   the tools this key sees here moved, a stream ended gracefully once its
 *   key is no longer usable, and the owner's upstream contacts resynced;
 * - upstream contacts held for the stream's life (listen-contacts.ts), from
 *   which list changes (tools again by digest) and resource updates for the
 *   URIs it follows pass, an update only while the key may read the URI.
 * The acknowledgement goes out once those contacts are open, so a change
 * right after it is not lost; it carries what is honoured: flags the
 * endpoint declares, URIs the key may read and the upstream follows.
 */
export class ListenStreams {
  private readonly open = new Set<Listening>();
  private readonly contacts: ListenContacts<Listening>;

  constructor(
    private readonly places: StreamPlaces,
    private readonly sources: ListenSources,
    listener: UpstreamListener,
    private readonly options: ListenOptions,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {
    this.contacts = new ListenContacts<Listening>(
      sources,
      listener,
      options.maxUpstreams,
      {
        heard: (listening, contact, notice) => this.heard(listening, contact, notice),
        opened: async (_listening, contact, flags) => {
          if (flags.has('toolsListChanged')) contact.tools = await this.upstreamTools(contact.record);
        },
      },
      log,
    );
  }

  get size(): number {
    return this.open.size;
  }

  async serve(res: Response, request: ListenRequest): Promise<void> {
    const { principal, id } = request;
    const filter = listenFilterOf(request.params, this.options.maxUris);
    if ('refused' in filter) return sendModernError(res, modernError(id, -32602, filter.refused));
    const place = this.places.take(principal.keyId);
    if (typeof place !== 'object') return this.refuse(res, id, place);
    const view = request.view ?? NAMESPACED_VIEW;
    const listening: Listening = {
      stream: null,
      principal,
      view,
      flags: new Set(),
      routed: new Map(),
      contacts: new Map(),
      digest: null,
      queue: Promise.resolve(),
    };
    let gone = false;
    const leave = () => {
      gone = true;
      this.contacts.closeAll(listening);
    };
    res.on('close', leave);
    try {
      await this.prepare(listening, filter);
    } catch (error) {
      res.off('close', leave);
      this.contacts.closeAll(listening);
      place.release();
      throw error;
    }
    res.off('close', leave);
    if (gone || res.writableEnded) {
      // Gone while the contacts were opening: those opened since are closed too.
      this.contacts.closeAll(listening);
      return place.release();
    }
    this.start(res, listening, place, id);
  }

  /** A change heard on the change listener (tool-change-watcher.ts): a key's row, or an owner's servers. */
  async changed(change: ToolChange): Promise<void> {
    const affected = [...this.open].filter((l) =>
      'keyId' in change
        ? l.principal.keyId === change.keyId && l.principal.accessToken === undefined
        : l.principal.userId === change.userId,
    );
    await Promise.all(
      affected.map((listening) =>
        this.queued(listening, async () => {
          if ('keyId' in change) {
            const scopes = await this.sources.scopesOf(change.keyId);
            if (scopes === null) return void listening.stream?.end(true);
            listening.principal = { ...listening.principal, scopes };
          } else {
            await this.contacts.resync(listening);
            for (const flag of ['promptsListChanged', 'resourcesListChanged'] as const)
              if (listening.flags.has(flag)) listening.stream?.notify(LIST_CHANGED_METHOD[flag]);
          }
          await this.compareTools(listening);
        }),
      ),
    );
  }

  /** Ends every stream with the listen's result (shutdown). */
  closeAll(): void {
    for (const listening of [...this.open]) listening.stream?.end(true);
  }

  private async prepare(listening: Listening, filter: ListenFilter): Promise<void> {
    const { principal, view } = listening;
    const { flags, uris } = honouredFlags(filter, await this.sources.capabilities({ userId: principal.userId, view }));
    listening.flags = flags;
    for (const uri of uris) {
      const target = await this.sources.resourceAt(principal.userId, view, uri);
      // A URI the key may not read is left out of the acknowledgement, as if it named nothing.
      if (target === null || !allows(principal.scopes, resourceScopes(target.record, target.name))) continue;
      const routed = listening.routed.get(target.record.id) ?? new Map<string, string>();
      routed.set(target.name, uri);
      listening.routed.set(target.record.id, routed);
    }
    await Promise.all([this.contacts.resync(listening), flags.has('toolsListChanged') ? this.compareTools(listening) : undefined]);
  }

  private start(res: Response, listening: Listening, place: StreamPlace, id: RpcId): void {
    const stream = new ListenStream(
      res,
      id,
      this.options.keepAliveMs ?? KEEP_ALIVE_MS,
      serverInfoFor(listening.view.server === null ? undefined : listening.view),
    );
    listening.stream = stream;
    const followed = [...listening.contacts.values()].flatMap((contact) =>
      [...contact.uris].filter(([name]) => contact.listen?.followed.has(name)).map(([, uri]) => uri),
    );
    const honoured: ListenFilter = {
      ...Object.fromEntries(LIST_FLAGS.filter((flag) => listening.flags.has(flag)).map((flag) => [flag, true])),
      ...(followed.length > 0 && { resourceSubscriptions: followed }),
    };
    stream.notify('notifications/subscriptions/acknowledged', { notifications: honoured });
    stream.onEnd(() => {
      this.open.delete(listening);
      this.contacts.closeAll(listening);
      place.release();
    });
    // Nothing to deliver: the subscription ends at once, as the SDK's own listen ends one.
    if (Object.keys(honoured).length === 0) return stream.end(true);
    this.open.add(listening);
    const expiresAt = listening.principal.accessToken?.expiresAt.getTime();
    if (expiresAt !== undefined) {
      // An access token's stream lasts no longer than the token.
      const timer = setTimeout(() => stream.end(true), Math.max(0, expiresAt - Date.now()));
      timer.unref();
      stream.onEnd(() => clearTimeout(timer));
    }
  }

  private heard(listening: Listening, contact: Contact, notice: UpstreamNotice): void {
    const stream = listening.stream;
    if (stream === null || stream.closed || contact.closed || !CHANGE_METHODS.has(notice.method)) return;
    void this.queued(listening, async () => {
      if (notice.method === 'notifications/resources/updated') return this.updated(listening, contact, notice);
      await this.sources.upstreamChanged(contact.record, notice.method);
      if (notice.method === LIST_CHANGED_METHOD.toolsListChanged) return this.upstreamToolsChanged(listening, contact);
      const flag = notice.method === LIST_CHANGED_METHOD.promptsListChanged ? 'promptsListChanged' : 'resourcesListChanged';
      const field = flag === 'promptsListChanged' ? 'prompt_scopes' : 'resource_scopes';
      // Only to a key that may see something of that kind there.
      if (listening.flags.has(flag) && mayShowAny(contact.record, field, listening.principal.scopes)) stream.notify(notice.method);
    });
  }

  /**
   * An upstream's tools/list_changed: told where the tools the key sees
   * moved (and to the owner's other streams here, whose views may show
   * them). When keygate's own listing of the upstream did not move at all,
   * it cannot tell what changed (an upstream may list per caller, or say so
   * for its own reasons): the upstream's word is passed on to a key that
   * sees any of its tools. A change only to tools the key may not see is
   * not told.
   */
  private async upstreamToolsChanged(listening: Listening, contact: Contact): Promise<void> {
    const others = [...this.open].filter((other) => other !== listening && other.principal.userId === listening.principal.userId);
    others.forEach((other) => void this.queued(other, () => this.compareTools(other)));
    if (await this.compareTools(listening)) return;
    const before = contact.tools;
    contact.tools = await this.upstreamTools(contact.record);
    if (before !== contact.tools || !listening.flags.has('toolsListChanged')) return;
    const { principal } = listening;
    if (
      await this.sources.seesTools(
        principal.userId,
        principal.scopes,
        singleServerView(contact.record.data.name as string) ?? listening.view,
      )
    ) {
      listening.stream?.notify(LIST_CHANGED_METHOD.toolsListChanged);
    }
  }

  private upstreamTools(record: ResourceRecord): Promise<string | null> {
    const view = singleServerView(record.data.name as string);
    return view === null ? Promise.resolve(null) : this.sources.toolsDigest(record.ownerId, ScopeSet.full(), view);
  }

  private updated(listening: Listening, contact: Contact, notice: UpstreamNotice): void {
    const uri = notice.params?.uri;
    const named = typeof uri === 'string' ? contact.uris.get(uri) : undefined;
    // Only a URI it follows, and only while the key, as it is now, may read it.
    if (named === undefined || !contact.listen?.followed.has(uri as string)) return;
    if (!allows(listening.principal.scopes, resourceScopes(contact.record, uri as string))) return;
    listening.stream?.notify('notifications/resources/updated', { uri: named });
  }

  /** Tells tools/list_changed when the tools the key sees here moved; true when it did. */
  private async compareTools(listening: Listening): Promise<boolean> {
    if (!listening.flags.has('toolsListChanged')) return false;
    const { principal, view } = listening;
    const digest = await this.sources.toolsDigest(principal.userId, principal.scopes, view);
    const before = listening.digest;
    listening.digest = digest;
    if (before === null || before === digest) return false;
    listening.stream?.notify(LIST_CHANGED_METHOD.toolsListChanged);
    return true;
  }

  private queued(listening: Listening, work: () => Promise<unknown> | void): Promise<void> {
    listening.queue = listening.queue
      .then(async () => {
        if (listening.stream?.closed) return;
        await work();
      })
      .catch((error) => this.log('could not follow a change for a subscriptions/listen stream', error));
    return listening.queue;
  }

  private refuse(res: Response, id: RpcId, bound: 'key' | 'replica'): void {
    res.setHeader('Retry-After', '5');
    if (bound === 'key') {
      return sendModernError(res, {
        httpStatus: 429,
        id,
        code: -32000,
        message: 'Too Many Requests: this key holds as many streams on this replica as it may (MCP_MAX_STREAMS_PER_KEY)',
      });
    }
    sendModernError(res, {
      httpStatus: 503,
      id,
      code: -32000,
      message: 'Service Unavailable: this replica holds as many streams as it may (MCP_MAX_STREAMS_PER_REPLICA)',
    });
  }
}
