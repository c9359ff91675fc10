import { setMaxListeners } from 'node:events';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ItemKind, UpstreamCompletion, UpstreamContentSession, UpstreamItem } from '../../../application/ports/upstream-content.port';
import { Agent } from 'undici';
import { UpstreamContext, UpstreamServer, UpstreamSession, UpstreamTool } from '../../../application/ports/upstream-mcp.port';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { ClientSessionView, HeldUpstreamSession, UpstreamSessionStore } from '../../../application/ports/upstream-session-store.port';
import { relayedCapabilities, relayingClient } from './relaying-client';
import { asReplyError, listItems, LISTS, listToolPages } from './sdk-upstream-lists';
import { LinkedAbort } from './linked-abort';
import { answeredFirst, upstreamFetch } from './upstream-fetch';
import { ContactStop } from './contact-stop';
import { requestIdOffset, wireId, withUniqueRequestIds } from './unique-request-ids';
import { cancelLegacyCall, LegacyCall, postLegacyCall } from './legacy-upstream-post';
import { isHeaderSafeName, PostAnswer } from './direct-upstream-post';

/** Longest wait at close for messages still being sent (a cancellation). */
const SEND_GRACE_MS = 1000;

export interface UpstreamLimits {
  /** Bound on the whole session: connect, list and call. */
  timeoutMs: number;
  /** Largest reply read (MCP_UPSTREAM_MAX_BYTES). */
  maxBytes: number;
  /** tools/list pages read (MCP_UPSTREAM_MAX_PAGES). */
  maxPages: number;
  maxTools: number;
  /** Bound on a contact that relays a tools/call to the client (MCP_RELAY_CALL_TIMEOUT_MS); timeoutMs otherwise. */
  relayedTimeoutMs?: number;
}

/** The SDK client's request options on a contact's signal. */
export interface SdkRequestOptions {
  signal: AbortSignal;
  timeout: number;
}

/**
 * The options each SDK request of a contact takes. The SDK adds an abort
 * listener per request and keeps it: a contact makes up to maxPages + 3.
 * Made when the SDK is first used, as a direct POST needs no AbortSignal (lazy-abort.ts).
 */
export function sdkRequestOptions(signal: AbortSignal, limits: UpstreamLimits): SdkRequestOptions {
  setMaxListeners(limits.maxPages + 10, signal);
  return { signal, timeout: limits.timeoutMs };
}

/** Where a contact within a client session keeps keygate's session with the upstream. */
export interface HeldSessions {
  store: UpstreamSessionStore;
  clientSessionId: string;
  serverId: string;
}

/** How a contact's client takes over a call already POSTed: the same ids, and the answer to its first POST. */
interface HandOver {
  offset: number;
  response?: Response;
}

/**
 * One contact with an upstream through the SDK client over Streamable HTTP,
 * connected on first use. A refusal (address, size, pages, tools) stops the
 * whole contact and is what every later operation throws. Within a client
 * session (`held`) the contact continues keygate's session with the
 * upstream, stored in PostgreSQL, without initialize (on any replica), or
 * opens and stores one; an upstream that forgot it (404) gets a fresh one,
 * once. The client's logging level is sent when the upstream has not had it.
 */
export class SdkUpstreamSession implements UpstreamSession, UpstreamContentSession {
  private readonly stop = new ContactStop();
  private readonly deadline: LinkedAbort;
  private sdkOptions: SdkRequestOptions | undefined;
  private client: Promise<Client> | null = null;
  /** The held session this contact resumed: a 404 on it opens a fresh one. */
  private resumed: { view: ClientSessionView; held: HeldUpstreamSession } | null = null;
  /** A session this contact opened but could not keep: ended at close. */
  private unkept: StreamableHTTPClientTransport | null = null;
  /** Messages to the upstream still being sent. */
  private readonly sends = new Set<Promise<void>>();

  constructor(
    private readonly server: UpstreamServer,
    private readonly agent: Agent,
    private readonly limits: UpstreamLimits,
    private readonly context: UpstreamContext = {},
    private readonly held?: HeldSessions,
  ) {
    this.deadline = new LinkedAbort([this.stop.source], limits.timeoutMs);
  }

  private get options(): SdkRequestOptions {
    return (this.sdkOptions ??= sdkRequestOptions(this.deadline.signal, this.limits));
  }

  listTools(): Promise<UpstreamTool[]> {
    return this.guarded((client) =>
      listToolPages(this.server.name, this.limits, this.stop.refusing('tools/list'), (params) =>
        client.request({ method: 'tools/list', params }, this.options),
      ),
    );
  }

  callTool(tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    // request() rather than client.callTool(): the result is relayed as it came, and the
    // client must not compile validators for output schemas an upstream declared.
    const request = (client: Client) => {
      const relay = this.context.relay;
      const params = this.paramsOf({ name: tool, arguments: args });
      if (relay === undefined) return client.request({ method: 'tools/call', params }, this.options);
      // The SDK puts its own progress token on the request and maps the upstream's progress back through onprogress.
      const onprogress = relay.wantsProgress
        ? (p: { progress: number; total?: number; message?: string }) => void relay.progress(p)
        : undefined;
      const call = new LinkedAbort([this.options.signal, relay.signal]);
      return client
        .request({ method: 'tools/call', params }, { ...this.options, signal: call.signal, onprogress })
        .finally(() => call.dispose());
    };
    if (this.held !== undefined && this.client === null) return this.answered(() => this.posted(tool, args, request));
    return this.replied(request);
  }

  list(kind: ItemKind): Promise<UpstreamItem[]> {
    return this.guarded((client) =>
      listItems(client, kind, this.server.name, this.limits, this.options, this.stop.refusing(LISTS[kind].method)),
    );
  }

  readResource(uri: string): Promise<Record<string, unknown>> {
    return this.replied((client) => client.request({ method: 'resources/read', params: this.paramsOf({ uri }) }, this.relayedOptions()));
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>> {
    return this.replied((client) =>
      client.request({ method: 'prompts/get', params: this.paramsOf({ name, arguments: args }) }, this.relayedOptions()),
    );
  }

  complete(params: UpstreamCompletion): Promise<Record<string, unknown>> {
    return this.replied(async (client) =>
      client.getServerCapabilities()?.completions === undefined
        ? { completion: { values: [] } }
        : client.request({ method: 'completion/complete', params: params as unknown as Record<string, unknown> }, this.options),
    );
  }

  follow(uri: string, on: boolean): Promise<boolean> {
    return this.replied(async (client) => {
      if (client.getServerCapabilities()?.resources?.subscribe !== true) return false;
      await client.request({ method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, this.options);
      return true;
    });
  }

  capabilities(): Promise<Record<string, unknown>> {
    // Connecting is the whole contact: initialize told them, or the held session kept them.
    return this.guarded(async (client) => ({ ...client.getServerCapabilities() }));
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => null);
    // A cancelled call's notifications/cancelled is still on its way to the upstream; closing now would abort it.
    if (this.sends.size > 0)
      await Promise.race([Promise.allSettled(this.sends), new Promise((resolve) => setTimeout(resolve, SEND_GRACE_MS).unref())]);
    await this.unkept?.terminateSession().catch(() => undefined);
    await client?.close().catch(() => undefined);
    this.stop.close();
    this.deadline.dispose();
  }

  private async guarded<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      try {
        return await work(await (this.client ??= this.connect()));
      } catch (error) {
        const resumed = this.resumed;
        if (resumed === null || !(error instanceof SdkHttpError) || error.status !== 404) throw error;
        // The upstream forgot keygate's session: a fresh one, once.
        this.resumed = null;
        await this.held!.store.forget(this.held!.clientSessionId, this.held!.serverId, resumed.held.upstreamSessionId);
        return await work(await (this.client = this.open(resumed.view)));
      }
    } catch (error) {
      // The SDK reports an aborted request as a timeout; the refusal behind it is the news.
      throw this.stop.refusal ?? error;
    }
  }

  /**
   * The params with the client's trace context in _meta (a 2026 client's
   * traceparent, tracestate, baggage). A 2025 upstream has no retry to
   * resume: a sealed state keygate minted for a 2026 upstream (the record
   * was since re-learned as 2025) is refused, not sent as a fresh request.
   */
  private paramsOf(params: Record<string, unknown>): Record<string, unknown> {
    const forwarded = this.context.forwarded;
    if (forwarded?.input?.resume !== undefined) {
      forwarded.input.stale = true;
      throw new Error('the requestState was sealed for a 2026-07-28 server, and this one speaks 2025');
    }
    return forwarded !== undefined && Object.keys(forwarded.trace).length > 0 ? { ...params, _meta: { ...forwarded.trace } } : params;
  }

  /** The request's options, cancelled with the relay too (a 2026 client's parked read or prompt cancelled). */
  private relayedOptions(): { signal: AbortSignal; timeout: number } {
    const relay = this.context.relay;
    // Not AbortSignal.any (linked-abort.ts); nothing to dispose: no timer, and both sources end with the contact.
    return relay === undefined ? this.options : { ...this.options, signal: new LinkedAbort([this.options.signal, relay.signal]).signal };
  }

  /** guarded, with the upstream's own JSON-RPC error answers told apart from failures to get one. */
  private replied<T>(work: (client: Client) => Promise<T>): Promise<T> {
    return this.answered(() => this.guarded(work));
  }

  private async answered<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw asReplyError(error);
    }
  }

  /**
   * The first call of a contact within a client session: in a held session
   * with nothing else to send (log level, progress, trace), one direct POST
   * (legacy-upstream-post.ts). An answer it does not read itself is read by
   * the SDK client, connected as connect() does with the same ids, as the
   * answer to its own first request (the same bytes), so the tool runs once.
   */
  private async posted(
    tool: string,
    args: Record<string, unknown> | undefined,
    request: (client: Client) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    let view: ClientSessionView | null;
    try {
      view = await this.held!.store.find(this.held!.clientSessionId, this.held!.serverId);
    } catch (error) {
      throw this.stop.refusal ?? error;
    }
    const offset = requestIdOffset();
    const call = this.plainCall(view, tool, args, wireId(offset, 0));
    if (view?.held == null || call === undefined) {
      this.client ??= this.connect(view);
      return this.guarded(request);
    }
    this.resumed = { view, held: view.held };
    const relay = this.context.relay;
    // Not disposed: the answer may be handed over still streaming, and both sources end with the contact.
    const contact = this.deadline.source;
    const signal = relay === undefined ? contact : new LinkedAbort([contact, relay.signal]).source;
    const refuse = (refusal: UpstreamRefusal) => this.stop.stopWith(refusal);
    let answer: PostAnswer;
    try {
      answer = await postLegacyCall(this.agent, call, this.limits.maxBytes, signal, refuse);
    } catch (error) {
      // The client cancelled the call: the upstream is told, as the SDK client tells it, before close waits for what is being sent.
      if (relay?.signal.aborted && !contact.aborted)
        void this.sent(cancelLegacyCall(this.agent, call, relay.signal.reason, contact, refuse));
      throw this.stop.refusal ?? error;
    }
    if (answer.kind === 'result') return answer.result;
    this.client ??= this.connect(view, { offset, response: answer.kind === 'reply' ? answer.response : undefined });
    return this.guarded(request);
  }

  /** The call as the SDK client would send it first in the held session, when nothing else must go before or with it. */
  private plainCall(
    view: ClientSessionView | null,
    tool: string,
    args: Record<string, unknown> | undefined,
    id: number,
  ): LegacyCall | undefined {
    const held = view?.held;
    if (view == null || held == null || !isHeaderSafeName(tool) || this.context.relay?.wantsProgress) return undefined;
    if (view.logLevel !== null && view.logLevel !== held.logLevel && held.serverCapabilities.logging !== undefined) return undefined;
    const params = this.paramsOf({ name: tool, arguments: args });
    if (params._meta !== undefined) return undefined;
    return {
      url: this.server.url,
      headers: this.server.headers,
      sessionId: held.upstreamSessionId,
      protocolVersion: held.protocolVersion,
      name: tool,
      arguments: args,
      id,
    };
  }

  /** `view` when it was read already; `handOver` when the first request was POSTed already. */
  private async connect(known?: ClientSessionView | null, handOver?: HandOver): Promise<Client> {
    const view = known !== undefined ? known : this.held ? await this.held.store.find(this.held.clientSessionId, this.held.serverId) : null;
    // Stateless, or the client session ended meanwhile: a short contact, as ever; a 2026 client's relayed call declares what it declared.
    if (view === null) return this.contact(this.context.relay ? relayedCapabilities(this.context.clientCapabilities ?? {}) : {}, undefined);
    if (view.held === null) return this.open(view);
    this.resumed = { view, held: view.held };
    const client = await this.contact(view.held.clientCapabilities, view.held, handOver);
    await this.applyLogLevel(client, view, view.held.logLevel);
    return client;
  }

  /** initialize with the capabilities the client session allows, and keep the session the upstream gave. */
  private async open(view: ClientSessionView): Promise<Client> {
    const capabilities = relayedCapabilities(view.clientCapabilities);
    const client = await this.contact(capabilities, undefined);
    const transport = client.transport as StreamableHTTPClientTransport;
    // An upstream without sessions gives no id: every contact initializes, as a stateless one does.
    if (transport.sessionId === undefined) return client;
    const held = {
      upstreamSessionId: transport.sessionId,
      protocolVersion: transport.protocolVersion ?? '',
      serverCapabilities: client.getServerCapabilities() ?? {},
      clientCapabilities: capabilities,
      logLevel: null,
    };
    const { store, clientSessionId, serverId } = this.held!;
    // Not kept (another replica opened one meanwhile, or the client session ended): this one is ended with the contact.
    if (!(await store.save(clientSessionId, serverId, view.userId, held))) this.unkept = transport;
    else await this.applyLogLevel(client, view, null);
    return client;
  }

  private async applyLogLevel(client: Client, view: ClientSessionView, sent: string | null): Promise<void> {
    if (view.logLevel === null || view.logLevel === sent || client.getServerCapabilities()?.logging === undefined) return;
    await client.setLoggingLevel(view.logLevel as Parameters<Client['setLoggingLevel']>[0], this.options);
    await this.held!.store.setHeldLogLevel(this.held!.clientSessionId, this.held!.serverId, view.logLevel);
  }

  /** `sending`, waited for at close (a cancellation on its way). */
  private sent(sending: Promise<void>): Promise<void> {
    this.sends.add(sending);
    void sending.finally(() => this.sends.delete(sending)).catch(() => undefined);
    return sending;
  }

  /** A client over a new transport; with `held`, continuing that session without initialize. */
  private async contact(
    capabilities: Record<string, unknown>,
    held: HeldUpstreamSession | undefined,
    handOver?: HandOver,
  ): Promise<Client> {
    const client = relayingClient(capabilities, () => this.context.relay);
    const transport = withUniqueRequestIds(
      new StreamableHTTPClientTransport(new URL(this.server.url), {
        requestInit: { headers: this.server.headers },
        fetch: answeredFirst(
          upstreamFetch(this.agent, this.limits.maxBytes, this.options.signal, (refusal) => this.stop.stopWith(refusal)),
          handOver?.response,
        ),
        // Only an answer that began with a priming event is resumed (GET with Last-Event-ID, after the upstream's retry:),
        // as when it closes its stream mid-call (SEP-1699); a failed resumption is tried once more, then the call fails.
        reconnectionOptions: { maxReconnectionDelay: 1000, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 2 },
        sessionId: held?.upstreamSessionId,
      }),
      handOver?.offset,
    );
    const send = transport.send.bind(transport);
    transport.send = (message, options) => this.sent(send(message, options));
    await client.connect(transport, this.options);
    if (held !== undefined) {
      // The SDK skips initialize for a transport that has a session id; what initialize would have set is restored.
      transport.setProtocolVersion(held.protocolVersion);
      (client as unknown as { _serverCapabilities: unknown })._serverCapabilities = held.serverCapabilities;
    }
    return client;
  }
}
