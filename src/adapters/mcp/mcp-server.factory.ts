import { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { UpstreamContext } from '../../application/ports/upstream-mcp.port';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { UpstreamView } from '../../application/use-cases/gateway/external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES } from '../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { FindEndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/find-endpoint-capabilities.use-case';
import { AuditOrigin, NO_ORIGIN } from '../../domain/audit';
import { ANY_PARAMS } from './any-params';
import { tracedRequest } from './modern/forwarded-meta';
import { progressTokenOf } from './modern/modern-relay';
import { RPC } from './json-rpc';
import { listToolsFor } from './list-tools-request';
import { RpcError } from './rpc-error';
import { CONNECT_BY_TOOL_ERROR, ConnectPrompt, toMcpError } from './mcp-error-map';
import { MAX_RESULT_RECORD_BYTES } from './record-view';
import { ToolCallRecorder } from './tool-call-recorder';
import { serveUpstreamContent, UpstreamContentUseCases } from './upstream-content-handlers';
import { ToolCallParams, ToolCallRunner } from './tool-call-runner';
import { AllowedCalls } from './tool-gate';
import { toMcpTool } from './tool-presenter';
import { SessionRelays } from './relay/session-relays';

/** The client session a request belongs to; `relay` when its answer is an SSE stream that can carry relayed messages. */
export interface SessionCall {
  id: string;
  relay: boolean;
  /**
   * Set when the client declared URL-mode elicitation at initialize: the
   * origin it reached keygate at, so that a call that needs a connection is
   * its -32042 with the connect page's absolute URL.
   */
  connectBase?: string;
}

export const SERVER_INFO = { name: 'keygate', version: '0.1.0' };
const INSTRUCTIONS =
  'Tools are filtered by the scopes of your API key. Each built-in tool takes an action, an optional subresource, an id and data.';

function serverInstructions(server: string): string {
  return `The MCP server ${server} through keygate: its tools, resources and prompts under their own names, filtered by the scopes of your API key.`;
}

/** Who answers on an endpoint: keygate on /mcp, keygate/<name> on /mcp/servers/<name>; both eras say the same. */
export function serverInfoFor(view?: UpstreamView): { name: string; version: string } {
  return view?.server ? { ...SERVER_INFO, name: `keygate/${view.server}` } : SERVER_INFO;
}

export function instructionsFor(view?: UpstreamView): string {
  return view?.server ? serverInstructions(view.server) : INSTRUCTIONS;
}

// Each Server would otherwise build its own Ajv instance, the largest cost of a
// stateless request; the validator holds no per-request state, so one serves all.
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/** RFC 5424 severities, as MCP names them. */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What McpServerFactory is built from (the container builds it, gateway.module.ts). */
export interface McpServerFactoryOptions {
  listTools: ListTools;
  callTool: CallTool;
  log: (error: unknown) => void;
  recorder: ToolCallRecorder;
  content: UpstreamContentUseCases;
  relays: SessionRelays;
  capabilities: FindEndpointCapabilities;
}

/**
 * One SDK server per HTTP request (stateless: replicas share nothing), bound
 * to the validated key. initialize, version negotiation, ping and unknown
 * methods (-32601) are the SDK's; tools, and the upstreams' resources,
 * prompts and completion (upstream-content-handlers.ts), are ours.
 */
export class McpServerFactory {
  private readonly calls: ToolCallRunner;

  constructor(private readonly options: McpServerFactoryOptions) {
    this.calls = new ToolCallRunner(options.callTool, options.recorder, options.log);
  }

  /**
   * What `create` should declare for a POST: on /mcp/servers/<name>, a lone
   * initialize gets what that upstream can be served with; anything else
   * (every other request, and all of /mcp) keygate's whole set, so no request
   * but initialize waits on the upstream's capabilities.
   */
  async declaredFor(principal: KeyPrincipal, messages: readonly unknown[], view?: UpstreamView): Promise<EndpointCapabilities> {
    if (!view?.server || messages.length !== 1 || (messages[0] as { method?: unknown }).method !== 'initialize')
      return KEYGATE_CAPABILITIES;
    return this.options.capabilities.execute({ userId: principal.userId, view, subjectToken: principal.accessToken?.token });
  }

  /**
   * `calls` is what the tool gate allowed and found for the POST's tools/call
   * messages; a call runs that target and is not looked up again.
   * `messages` is how many messages the POST carried: the answers of a batch
   * share one body, so each tool result gets that share of a lone result's
   * budget (MAX_BATCH_MESSAGES of them stay under 64 KiB together).
   * `origin` is the request's, for the audit events of each call that runs.
   * `view` is the endpoint's: /mcp's when left out, else one upstream's (/mcp/servers/<name>).
   * `declared` is what initialize answers (declaredFor); only their handlers are registered.
   */
  create(
    principal: KeyPrincipal,
    calls: AllowedCalls,
    messages = 1,
    origin: AuditOrigin = NO_ORIGIN,
    session?: SessionCall,
    view?: UpstreamView,
    declared: EndpointCapabilities = KEYGATE_CAPABILITIES,
  ): Server {
    const server = new Server(serverInfoFor(view), {
      // initialize always opens a session, whose GET stream carries list_changed; a client ignoring the session id never opens one.
      capabilities: { ...declared },
      jsonSchemaValidator: SHARED_VALIDATOR,
      instructions: instructionsFor(view),
    });
    const recordBytes = Math.floor(MAX_RESULT_RECORD_BYTES / messages);
    server.setRequestHandler('tools/list', { params: ANY_PARAMS }, async (params) => {
      try {
        const tools = await listToolsFor(this.options.listTools, principal, params, view);
        return { tools: tools.map(toMcpTool) };
      } catch (error) {
        throw toMcpError(error, this.options.log);
      }
    });
    server.setRequestHandler('tools/call', { params: ANY_PARAMS }, async (raw, ctx) => {
      const params = raw as unknown as ToolCallParams & { _meta?: { progressToken?: unknown } };
      const { id, signal } = ctx.mcpReq;
      const relay = session?.relay
        ? this.options.relays.open({
            sessionId: session.id,
            callRequestId: id,
            progressToken: progressTokenOf(params._meta),
            signal,
            send: (message) => server.transport!.send(message as unknown as JSONRPCMessage, { relatedRequestId: id }),
          })
        : undefined;
      const forwarded = tracedRequest(params._meta);
      const upstream: UpstreamContext | undefined = session
        ? { clientSessionId: session.id, relay, forwarded }
        : forwarded && { forwarded };
      try {
        const base = session?.connectBase;
        const prompt: ConnectPrompt = base === undefined ? CONNECT_BY_TOOL_ERROR : { kind: 'url-elicitation-error', base };
        return await this.calls.run(principal, origin, calls, params, recordBytes, upstream, prompt);
      } finally {
        relay?.close();
      }
    });
    // Kept with the session and sent to each upstream session it uses; a stateless request has nothing to keep it in.
    if (declared.logging)
      server.setRequestHandler('logging/setLevel', { params: ANY_PARAMS }, async (params) => {
        const level = params.level;
        if (typeof level !== 'string' || !LOG_LEVELS.includes(level))
          throw new RpcError(RPC.INVALID_PARAMS, `MCP error -32602: level must be one of ${LOG_LEVELS.join(', ')}`);
        if (session) await this.options.relays.setLogLevel(session.id, level);
        return {};
      });
    serveUpstreamContent(
      server,
      this.options.content,
      principal,
      messages,
      this.options.log,
      session?.id,
      view,
      declared,
      session?.connectBase,
    );
    return server;
  }
}
