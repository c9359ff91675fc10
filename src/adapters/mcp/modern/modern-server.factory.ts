import { Server, ServerCapabilities } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { CallTool } from '../../../application/use-cases/gateway/tools/call-tool.use-case';
import { ListTools } from '../../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { KeyPrincipal } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES } from '../../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { ClientRelay, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { AuditOrigin } from '../../../domain/audit';
import { ANY_PARAMS } from '../any-params';
import { listToolsFor } from '../list-tools-request';
import { isUnavailable, toModernMcpError } from '../mcp-error-map';
import { instructionsFor, serverInfoFor } from '../mcp-server.factory';
import { MAX_RESULT_RECORD_BYTES } from '../record-view';
import { RpcError } from '../rpc-error';
import { ToolCallRecorder } from '../tool-call-recorder';
import { ToolCallParams, ToolCallRunner } from '../tool-call-runner';
import { AllowedCalls } from '../tool-gate';
import { toMcpTool } from '../tool-presenter';
import { upstreamContentAnswers, UpstreamContentUseCases } from '../upstream-content-handlers';
import { ConnectRound, isConnectState } from './connect-round';
import { InputMethod, InputRequiredRounds, InputRound } from './input-required-rounds';
import { modernRelay, progressTokenOf } from './modern-relay';
import { ParkedCalls } from './parked-calls';
import { OpenedRequestState } from './opened-request-state';
import { ParkedToolCalls } from './parked-tool-calls';
import { RequestStateBinding, SealedRequestState } from './sealed-request-state';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

// As in mcp-server.factory.ts: the Server would build an Ajv instance per request otherwise; it keeps no per-request state.
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

// Lists are filtered per key, reads and calls gated per key: nothing may be shared between users.
const PRIVATE = { ttlMs: 0, cacheScope: 'private' } as const;
const CACHE_HINTS = {
  'server/discover': PRIVATE,
  'tools/list': PRIVATE,
  'resources/list': PRIVATE,
  'resources/templates/list': PRIVATE,
  'resources/read': PRIVATE,
  'prompts/list': PRIVATE,
};

/** What one 2026 request brings to its server: the key, what the tool gate allowed, the endpoint. */
export interface ModernCall {
  principal: KeyPrincipal;
  /** The request's method: only server/discover needs the endpoint's capabilities. */
  method: string;
  calls: AllowedCalls;
  origin: AuditOrigin;
  view?: UpstreamView;
  /** Whether the client takes an event stream: only then can progress precede the result. */
  streams: boolean;
  /** The request's io.modelcontextprotocol/logLevel: with one, an upstream's log messages may reach the client, and logging is served. */
  logLevel?: string;
  /** The origin the client reached keygate at, for a tools/call: a connect page's URL is made absolute against it. */
  connectBase?: string;
  /** Hears an outage a handler met (modern-http.ts sets it): the edge answers it 503 while the answer is not yet streaming. */
  unavailable?: (error: unknown) => void;
}

/**
 * One SDK v2 server per 2026-07-28 request (stateless), bound to the key, the
 * way McpServerFactory builds one per 2025 request and over the same
 * use-cases: the same tool list (scopes, agent scopes, pins), the same runner
 * and recorder for calls (one audit event each). server/discover, resultType,
 * the caching hints and serverInfo in _meta are the SDK's.
 */
/** What ModernServerFactory is built from (the gateway module builds it). */
export interface ModernServerFactoryOptions {
  listTools: ListTools;
  callTool: CallTool;
  log: (error: unknown) => void;
  recorder: ToolCallRecorder;
  /** What discover declares: what subscriptions/listen honours on the endpoint (listen-capabilities.ts). */
  capabilities: { execute(input: { userId: string; view: UpstreamView }): Promise<EndpointCapabilities> };
  content: UpstreamContentUseCases;
  /** Input-required results carry keygate's sealed state (increments 6 and 8 of docs/design/mcp-2026-07-28.md). */
  states: SealedRequestState;
  parkedCalls: ParkedCalls;
}

export class ModernServerFactory {
  private readonly listTools: ListTools;
  private readonly log: (error: unknown) => void;
  private readonly capabilities: ModernServerFactoryOptions['capabilities'];
  private readonly content: UpstreamContentUseCases;
  protected readonly states: SealedRequestState;
  private readonly calls: ToolCallRunner;
  private readonly rounds: InputRequiredRounds;
  private readonly parked: ParkedToolCalls;

  constructor(options: ModernServerFactoryOptions) {
    const { callTool, recorder, parkedCalls } = options;
    ({ listTools: this.listTools, log: this.log, capabilities: this.capabilities, content: this.content, states: this.states } = options);
    this.calls = new ToolCallRunner(callTool, recorder, this.log);
    this.rounds = new InputRequiredRounds(this.states);
    this.parked = new ParkedToolCalls(parkedCalls, this.states);
  }

  async create(call: ModernCall): Promise<Server> {
    const { principal, view } = call;
    // Only discover tells the capabilities: no other request waits on an upstream's.
    const declared =
      call.method === 'server/discover' && view?.server
        ? await this.capabilities.execute({ userId: principal.userId, view })
        : KEYGATE_CAPABILITIES;
    const server = new Server(serverInfoFor(view), {
      // logging only lets an upstream's log messages through, for a request that asked with a logLevel; discover never declares it.
      capabilities: { ...servedOf(declared), ...(call.logLevel !== undefined && call.method !== 'server/discover' && { logging: {} }) },
      instructions: instructionsFor(view),
      jsonSchemaValidator: SHARED_VALIDATOR,
      cacheHints: CACHE_HINTS,
      // A 2025 session never reaches this server; input_required stays the handler's to return.
      inputRequired: { legacyShim: false },
    });
    // ANY_PARAMS: a cursor of the wrong type is listToolsFor's -32602, not the SDK schema's -32603.
    server.setRequestHandler('tools/list', { params: ANY_PARAMS }, async (params) => {
      try {
        const tools = await listToolsFor(this.listTools, principal, params, view);
        return { tools: tools.map(toMcpTool) };
      } catch (error) {
        throw this.failure(call, error);
      }
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const params = request.params as unknown as ToolCallParams & { _meta?: unknown };
      // No session: the upstream is called as a stateless request, its progress and (with a logLevel) log messages relayed on this request's stream.
      const relay = call.streams
        ? modernRelay({
            progressToken: progressTokenOf(params._meta),
            logLevel: call.logLevel,
            signal: ctx.mcpReq.signal,
            notify: (notification) => ctx.mcpReq.notify(notification),
          })
        : undefined;
      const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
      const binding = bindingOf(call, 'tools/call', params.name);
      const connect = new ConnectRound(this.states, envelope?.[CLIENT_CAPABILITIES], binding, call.connectBase);
      try {
        return (await this.withInput(call, 'tools/call', params.name, ctx, relay, async (round, upstream) => {
          const result = await this.calls.run(
            principal,
            call.origin,
            call.calls,
            params,
            MAX_RESULT_RECORD_BYTES,
            { ...upstream, forwarded: round.forwarded },
            connect.prompt,
          );
          // keygate's own input_required (connect first) is sealed already; an upstream's is sealed by its round.
          return connect.asked ? result : round.answer(result);
        })) as never;
      } catch (error) {
        // The runner and the rounds answer their own errors; only an outage is noted and reworded.
        throw isUnavailable(error) ? this.failure(call, error) : error;
      }
    });
    // The 2025 handlers' answers over the same use-cases, without a session (a 2025 stateless request's) and without subscribe (gone in 2026).
    for (const [method, answer] of upstreamContentAnswers(this.content, principal, 1, undefined, view, withoutSubscribe(declared))) {
      server.setRequestHandler(method, { params: ANY_PARAMS }, async (params, ctx) => {
        try {
          if (method !== 'resources/read' && method !== 'prompts/get') return await answer(params);
          // Mapped inside: a parked read's failure travels to the client as a JSON-RPC error (wireErrorOf).
          const name = params[method === 'resources/read' ? 'uri' : 'name'];
          // The edge's gates do not know content scopes: a parked read's later round asks again what its first one asked.
          const access = () =>
            this.content.checkAccess.execute({ userId: principal.userId, scopes: principal.scopes, method, name: name as string, view });
          return await this.withInput(
            call,
            method,
            name,
            ctx,
            undefined,
            async (round, upstream) => {
              try {
                return round.answer(await answer(params, round.forwarded, upstream));
              } catch (error) {
                throw toModernMcpError(round.failure(error), this.log);
              }
            },
            access,
          );
        } catch (error) {
          throw this.failure(call, error);
        }
      });
    }
    return server;
  }

  /** A handler's error for the SDK to send; an outage is noted first, for the edge to answer 503 while it still can. */
  private failure(call: ModernCall, error: unknown): RpcError {
    const answer = toModernMcpError(error, this.log);
    if (isUnavailable(answer)) call.unavailable?.(answer);
    return answer;
  }

  /**
   * One request of the three that may answer input_required: a parked
   * call's retry resumes it (parked-tool-calls.ts); any other state is a 2026
   * upstream's round (input-required-rounds.ts), sealed as it comes back; a
   * first request may park when its 2025 upstream asks for input the client
   * declared (a 2026 upstream asks in its answer instead). A retry whose
   * state is keygate's connect prompt's (connect-round.ts) is a first request.
   */
  private async withInput(
    call: ModernCall,
    method: InputMethod,
    name: unknown,
    ctx: { mcpReq: unknown },
    firstRound: UpstreamRelay | undefined,
    run: (round: InputRound, upstream: ClientRelay | undefined) => Promise<Record<string, unknown>>,
    gate?: () => Promise<void>,
  ): Promise<Record<string, unknown>> {
    const req = ctx.mcpReq as {
      _meta?: unknown;
      envelope?: Record<string, unknown>;
      inputResponses?: Record<string, unknown>;
      requestState: () => unknown;
      signal: AbortSignal;
    };
    const binding = bindingOf(call, method, name);
    // Opened once here (decrypting is the dear part), then read by whichever kind of round it is.
    const sealed = req.requestState();
    const opened = sealed === undefined ? undefined : OpenedRequestState.open(this.states, sealed, binding);
    // A retry after keygate asked the user to connect is the call again, from scratch: its answers are for no upstream.
    const connected = opened !== undefined && isConnectState(opened.payload);
    const state = connected ? undefined : opened;
    if (state !== undefined) {
      const resumed = await this.parked.retry(state, req.inputResponses, binding, gate);
      if (resumed !== undefined) return resumed;
    }
    const round = this.rounds.begin({
      binding,
      meta: req._meta,
      envelope: req.envelope,
      inputResponses: connected ? undefined : req.inputResponses,
      requestState: state,
    });
    if (state !== undefined) return run(round, firstRound && { relay: firstRound });
    return this.parked.first({
      binding,
      clientCapabilities: req.envelope?.[CLIENT_CAPABILITIES],
      firstRound,
      signal: req.signal,
      run: (upstream) => run(round, upstream),
    });
  }
}

/** What a requestState of this request is bound to: the key, the endpoint, the method and its tool, prompt or URI. */
export function bindingOf(call: ModernCall, method: InputMethod, name: unknown): RequestStateBinding {
  const endpoint = call.view?.server ? `/mcp/servers/${call.view.server}` : '/mcp';
  return { keyId: call.principal.keyId, endpoint, method, name: typeof name === 'string' ? name : '' };
}

/**
 * What a 2026 endpoint declares: the endpoint's set (narrowed to the upstream
 * on /mcp/servers/<name>, as initialize declares it) cut to what the modern
 * leg serves: tools, resources, prompts and completions, with the listChanged
 * and subscribe that subscriptions/listen delivers (modern/listen-streams.ts:
 * the same set narrows its acknowledgement); logging is not declared
 * (2026-07-28 deprecates it, keygate logs nothing itself).
 */
export function servedOf(declared: EndpointCapabilities): ServerCapabilities {
  return {
    ...(declared.tools && { tools: { ...declared.tools } }),
    ...(declared.resources && { resources: { ...declared.resources } }),
    ...(declared.prompts && { prompts: { ...declared.prompts } }),
    ...(declared.completions && { completions: {} }),
  };
}

function withoutSubscribe(declared: EndpointCapabilities): EndpointCapabilities {
  return { ...declared, resources: declared.resources && {} };
}
