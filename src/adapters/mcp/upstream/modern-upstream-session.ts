import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent } from 'undici';
import {
  ItemKind,
  UpstreamCompletion,
  UpstreamContentSession,
  UpstreamItem,
  UpstreamReplyError,
} from '../../../application/ports/upstream-content.port';
import {
  InputPassthrough,
  UpstreamContext,
  UpstreamServer,
  UpstreamSession,
  UpstreamTool,
} from '../../../application/ports/upstream-mcp.port';
import { inputPassthroughClient } from './input-passthrough-client';
import { asLegacyResult } from './legacy-result';
import { modernRelayingClient, UnrelayedInput } from './modern-relaying-client';
import { listPages, LISTS, listToolPages } from './sdk-upstream-lists';
import { SdkRequestOptions, sdkRequestOptions, UpstreamLimits } from './sdk-upstream-session';
import { PlainCall, PostAnswer, postPlainCall } from './modern-upstream-post';
import { answeredFirst, upstreamFetch } from './upstream-fetch';
import { ModernProfile } from './upstream-profile';
import { LinkedAbort } from './linked-abort';
import { ContactStop } from './contact-stop';
import { isHeaderSafeName } from './direct-upstream-post';

export { isHeaderSafeName };

/** MissingRequiredClientCapability: what an SDK v2 upstream answers when it wants input keygate did not declare it can give. */
const MISSING_CAPABILITY = -32021;
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** The SDK reports each auto-fulfilled round as progress; the client gets only the upstream's own (progress must only increase). */
const ROUND_PROGRESS = 'Fulfilling input required by ';

/**
 * One contact with an upstream that speaks 2026-07-28 only, through the SDK
 * v2 client connected on the learned discover result (no probe), stateless:
 * every request is a POST carrying the `_meta` envelope, and nothing is held.
 * The same pinned, byte-capped fetch and bounds as the 2025 path. During a
 * tools/call relayed to a 2025 client session, `relayable` gives the client
 * capabilities keygate declares (what the session's client declared and
 * keygate relays): the upstream's input requests for them are relayed to the
 * client and answered on the retry (modern-relaying-client.ts). Otherwise
 * nothing is declared, and a tools/call that asks for input is a tool error
 * saying keygate cannot relay it.
 */
export class ModernUpstreamSession implements UpstreamSession, UpstreamContentSession {
  private readonly stop = new ContactStop();
  private sdkOptions: SdkRequestOptions | undefined;
  private readonly timer: NodeJS.Timeout;
  private client: Promise<Client> | null = null;
  /** Whether the connected client fulfils input requests through the relay. */
  private relaying = false;

  constructor(
    private readonly server: UpstreamServer,
    private readonly agent: Agent,
    private readonly limits: UpstreamLimits,
    private readonly profile: ModernProfile,
    private readonly context: UpstreamContext = {},
    private readonly relayable?: () => Promise<Record<string, unknown>>,
  ) {
    // One timer cleared at close, rather than AbortSignal.timeout's, which lives on until it fires, and an AbortSignal.any per contact.
    this.timer = setTimeout(
      () => this.stop.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      limits.timeoutMs,
    ).unref();
  }

  private get options(): SdkRequestOptions {
    return (this.sdkOptions ??= sdkRequestOptions(this.stop.signal, this.limits));
  }

  listTools(): Promise<UpstreamTool[]> {
    return this.guarded((client) =>
      listToolPages(this.server.name, this.limits, this.stop.refusing('tools/list'), (params) =>
        client.request({ method: 'tools/list', params }, this.options),
      ),
    );
  }

  async callTool(tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const relay = this.context.relay;
    const onprogress = relay?.wantsProgress
      ? (p: { progress: number; total?: number; message?: string }) => {
          if (!(this.relaying && p.message?.startsWith(ROUND_PROGRESS))) void relay.progress(p);
        }
      : undefined;
    const signal = () => (relay === undefined ? this.options.signal : new LinkedAbort([this.options.signal, relay.signal]).signal);
    const input = this.context.forwarded?.input;
    if (input !== undefined) {
      return this.passedThrough(input, 'tools/call', { name: tool, arguments: args }, () => ({
        ...this.options,
        signal: signal(),
        onprogress,
        allowInputRequired: true,
      }));
    }
    try {
      // Relaying, the SDK fulfils input_required itself and retries (at most MAX_ROUNDS); otherwise it is returned here.
      const result = await this.replied(
        (client) =>
          client.request(
            { method: 'tools/call', params: this.paramsOf({ name: tool, arguments: args }) },
            { ...this.options, signal: signal(), onprogress, allowInputRequired: !this.relaying },
          ) as Promise<Record<string, unknown>>,
      );
      return result.resultType === 'input_required' ? this.inputRequired() : asLegacyResult(result);
    } catch (error) {
      if (error instanceof UpstreamReplyError && error.code === MISSING_CAPABILITY) return this.inputRequired();
      if (error instanceof SdkError && error.code === SdkErrorCode.CapabilityNotSupported) return this.inputRequired();
      if (error instanceof UnrelayedInput) return this.unanswered(error.message);
      throw error;
    }
  }

  list(kind: ItemKind): Promise<UpstreamItem[]> {
    return this.guarded((client) =>
      listPages(this.profile.capabilities, kind, this.server.name, this.limits, this.stop.refusing(LISTS[kind].method), (method, params) =>
        client.request({ method: method as 'tools/list', params }, this.options),
      ),
    );
  }

  readResource(uri: string): Promise<Record<string, unknown>> {
    return this.answered('resources/read', { uri });
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>> {
    return this.answered('prompts/get', { name, arguments: args });
  }

  async complete(params: UpstreamCompletion): Promise<Record<string, unknown>> {
    if (this.profile.capabilities.completions === undefined) return { completion: { values: [] } };
    return this.answered('completion/complete', params as unknown as Record<string, unknown>);
  }

  /**
   * 2026-07-28 has no resources/subscribe: the client session's stream
   * listens to the upstream instead, asking for the URIs the session
   * subscribed to (notifications/modern-upstream-listens.ts), so a URI is
   * followed wherever the upstream declares subscribe.
   */
  async follow(): Promise<boolean> {
    return (this.profile.capabilities.resources as { subscribe?: unknown } | undefined)?.subscribe === true;
  }

  /** What it declared that keygate passes on: no logging (its log messages are not relayed yet); subscribe and listChanged through its listen. */
  async capabilities(): Promise<Record<string, unknown>> {
    const { logging: _logging, ...rest } = this.profile.capabilities;
    return rest;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    // A contact that only posted (modern-upstream-post.ts) has nothing left listening.
    if (this.client === null) return;
    const client = await this.client.catch(() => null);
    await client?.close().catch(() => undefined);
    this.stop.close();
  }

  /** A request whose 2026 answer is relayed as a 2025 one; input it asks for goes back to a 2026 client, and cannot be given by a 2025 one. */
  private async answered(
    method: 'resources/read' | 'prompts/get' | 'completion/complete',
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const input = this.context.forwarded?.input;
    if (input !== undefined && method !== 'completion/complete')
      return this.passedThrough(input, method, params, () => ({ ...this.options, allowInputRequired: true }));
    const result = await this.replied(
      (client) =>
        client.request({ method, params: this.paramsOf(params) } as { method: 'resources/read'; params: Record<string, unknown> }, {
          ...this.options,
          allowInputRequired: true,
        }) as Promise<Record<string, unknown>>,
    );
    if (result.resultType === 'input_required')
      throw new UpstreamReplyError(
        MISSING_CAPABILITY,
        'the server asked for input, which keygate cannot relay from a 2026-07-28 server yet',
      );
    return asLegacyResult(result);
  }

  /**
   * A 2026 client's request, sent on with its retry fields when it is one:
   * an input_required answer comes back as it came (only its three fields),
   * the record that gave it noted for the sealed state; a -32021 is noted
   * with its data, for the edge to relay as that error. A retry whose
   * sealed state named another version of the record is not sent at all.
   * `options` are made only if the SDK client sends it (no AbortSignal for a direct POST).
   */
  private async passedThrough(
    input: InputPassthrough,
    method: 'tools/call' | 'resources/read' | 'prompts/get',
    params: Record<string, unknown>,
    options: () => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { resume } = input;
    if (resume?.server !== undefined && (resume.server.id !== this.server.id || resume.server.version !== this.server.version)) {
      input.stale = true;
      throw new Error('the requestState was sealed for another version of this server record');
    }
    let result: Record<string, unknown>;
    try {
      let made: Record<string, unknown> | undefined;
      const request = (client: Client) =>
        client.request(
          { method, params: this.paramsOf(params) } as { method: 'tools/call'; params: never },
          (made ??= options()),
        ) as Promise<Record<string, unknown>>;
      const plain = method === 'tools/call' ? this.plainCall(input, params) : undefined;
      result = plain === undefined ? await this.guarded(request) : await this.posted(plain, request);
    } catch (error) {
      if (error instanceof ProtocolError && error.code === MISSING_CAPABILITY)
        input.refused = { code: error.code, message: error.message, data: error.data };
      throw error instanceof ProtocolError ? new UpstreamReplyError(error.code, error.message) : error;
    }
    if (result.resultType !== 'input_required') return asLegacyResult(result);
    if (this.server.id !== undefined && this.server.version !== undefined)
      input.answeredBy = { id: this.server.id, version: this.server.version };
    const { inputRequests, requestState } = result;
    return {
      resultType: 'input_required',
      ...(inputRequests !== undefined && { inputRequests }),
      ...(requestState !== undefined && { requestState }),
    };
  }

  /**
   * A first tools/call of this contact with nothing but its name, arguments
   * and the client's capabilities to pass on (no retry, trace, logLevel or
   * relay, so no progress either): sent as one direct POST (modern-upstream-post.ts).
   */
  private plainCall(input: InputPassthrough, params: Record<string, unknown>): PlainCall | undefined {
    const trace = this.context.forwarded?.trace ?? {};
    if (
      this.client !== null ||
      this.context.relay !== undefined ||
      input.resume !== undefined ||
      input.logLevel !== undefined ||
      Object.keys(trace).length > 0 ||
      !isHeaderSafeName(params.name)
    )
      return undefined;
    return {
      url: this.server.url,
      headers: this.server.headers,
      name: params.name,
      arguments: params.arguments as Record<string, unknown> | undefined,
      clientCapabilities: input.clientCapabilities,
    };
  }

  /** The direct POST's answer; one it does not read goes to the SDK client as the answer to its first request (the same request, id 0). */
  private async posted(call: PlainCall, request: (client: Client) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    let answer: PostAnswer;
    try {
      answer = await postPlainCall(this.agent, call, this.limits.maxBytes, this.stop.source, (refusal) => this.stop.stopWith(refusal));
    } catch (error) {
      throw this.stop.refusal ?? error;
    }
    if (answer.kind === 'result') return answer.result;
    if (answer.kind === 'reply') this.client = this.connect(answer.response);
    return this.guarded(request);
  }

  /** The request's params with what the client passes on: its trace context and logLevel in _meta, and on a retry its answers and the upstream's own state. */
  private paramsOf(params: Record<string, unknown>): Record<string, unknown> {
    const forwarded = this.context.forwarded;
    if (forwarded === undefined) return params;
    const { input } = forwarded;
    const meta = { ...forwarded.trace, ...(input?.logLevel !== undefined && { [LOG_LEVEL]: input.logLevel }) };
    const resume = input?.resume;
    return {
      ...params,
      ...(Object.keys(meta).length > 0 && { _meta: meta }),
      ...(resume !== undefined && { inputResponses: resume.inputResponses }),
      ...(resume?.requestState !== undefined && { requestState: resume.requestState }),
    };
  }

  private inputRequired(): Record<string, unknown> {
    return {
      content: [
        {
          type: 'text',
          text: `The MCP server ${this.server.name} asked for input (elicitation, sampling or roots), which keygate cannot relay from a 2026-07-28 server yet`,
        },
      ],
      isError: true,
    };
  }

  /** The relay's error answer (already bounded and free of anything but the client's short message). */
  private unanswered(why: string): Record<string, unknown> {
    return {
      content: [{ type: 'text', text: `The MCP server ${this.server.name} asked for input the client did not give: ${why}` }],
      isError: true,
    };
  }

  private async guarded<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await work(await (this.client ??= this.connect()));
    } catch (error) {
      throw this.stop.refusal ?? error;
    }
  }

  /** guarded, with the upstream's own JSON-RPC error answers told apart from failures to get one. */
  private async replied<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.guarded(work);
    } catch (error) {
      throw error instanceof ProtocolError ? new UpstreamReplyError(error.code, error.message) : error;
    }
  }

  private async connect(firstAnswer?: Response): Promise<Client> {
    const relay = this.context.relay;
    const input = this.context.forwarded?.input;
    const capabilities = input === undefined && relay !== undefined && this.relayable !== undefined ? await this.relayable() : {};
    const client = input === undefined ? modernRelayingClient(capabilities, relay) : inputPassthroughClient(input, relay);
    this.relaying = input === undefined && relay !== undefined && Object.keys(capabilities).length > 0;
    const transport = new StreamableHTTPClientTransport(new URL(this.server.url), {
      requestInit: { headers: this.server.headers },
      fetch: answeredFirst(
        upstreamFetch(this.agent, this.limits.maxBytes, this.options.signal, (refusal) => this.stop.stopWith(refusal)),
        firstAnswer,
      ),
    });
    await client.connect(transport, { ...this.options, prior: { kind: 'modern', discover: this.profile.discover } });
    return client;
  }
}
