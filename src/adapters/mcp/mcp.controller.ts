import { Request, RequestHandler, Response, Router } from 'express';
import { AuthorizeToolCall } from '../../application/use-cases/tools/authorize-tool-call.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AuditOrigin, NO_ORIGIN } from '../../domain/audit';
import { apiKeyAuth, principalOf } from '../http/middleware/api-key-auth';
import { requestIdOf } from '../http/middleware/request-logging';
import { RPC, sendRpcError } from './json-rpc';
import { jsonRpcBody, messagesOf } from './json-rpc-body';
import { McpServerFactory } from './mcp-server.factory';
import { refuseInvalidParams } from './params-check';
import { RequestGuardOptions, requestGuard } from './request-guard';
import { responseFormat, serveStreamableHttp } from './streamable-http';
import { ToolCallRecorder } from './tool-call-recorder';
import { AllowedCalls, authorizeToolCalls } from './tool-gate';
import { ToolsCallFastPath } from './tools-call-fast-path';
import { ToolsListFastPath } from './tools-list-fast-path';
import { UsageGate } from './usage-gate';
import { acceptsEventStream, McpSessionEdge, sessionOf } from './sessions/mcp-session-edge';
import { FindServerView } from '../../application/use-cases/upstream-view/find-server-view.use-case';
import { serverView, viewOf } from './server-view';
import { McpOAuth } from './oauth/mcp-oauth';

/**
 * /mcp over MCP Streamable HTTP: stateless without Mcp-Session-Id, as ever;
 * with one, the session's (sessions/mcp-session-edge.ts). In order: Origin/Host check (403),
 * the API key, or with OAuth on a user's access token (401, whatever the body; oauth/mcp-oauth.ts), the body as JSON-RPC (-32700, -32600),
 * params the SDK would refuse badly (-32602), the tool-call scope gate (403,
 * and each call's target found once), the key's rate limit (429, counted
 * right after the key) and quota (429, charged before any call runs), then
 * a lone tools/list or built-in tools/call answered without the SDK, or else
 * the SDK server bound to the key, which runs the targets the gate found.
 */
export class McpController {
  constructor(
    private readonly validateKey: ValidateKey,
    private readonly authorize: AuthorizeToolCall,
    private readonly servers: McpServerFactory,
    private readonly config: RequestGuardOptions,
    private readonly fastPath: ToolsListFastPath,
    private readonly recorder: ToolCallRecorder,
    private readonly callFastPath: ToolsCallFastPath,
    private readonly usage: UsageGate,
    private readonly sessions: McpSessionEdge,
    private readonly findView: FindServerView,
    /** With MCP_RESOURCE_URL: access tokens besides keys, and the resource metadata URL in every challenge. */
    private readonly oauth?: McpOAuth,
  ) {}

  /**
   * Mounts /mcp on `app` as a single route (no nested router to walk on the
   * hot path), with `first` (the failed-validation limit) ahead of the checks;
   * and /mcp/servers/:name, the same pipeline over one upstream server's view
   * (its 404 after the key and the rate limit, before any session).
   */
  mount(app: Router, ...first: RequestHandler[]): void {
    const credentials = this.oauth?.authenticate ?? apiKeyAuth(this.validateKey);
    const before = [...first, requestGuard(this.config), credentials, this.usage.admitRequest];
    this.route(app, '/mcp', before);
    this.route(app, '/mcp/servers/:name', [...before, serverView(this.findView)]);
  }

  private route(app: Router, path: string, before: RequestHandler[]): void {
    const sessions = this.sessions;
    // The session (404) is looked up after the key, and only when the request names one.
    app
      .route(path)
      .post(...before, sessions.resolve, jsonRpcBody, (req, res) => this.post(req, res))
      // Without Mcp-Session-Id, GET and DELETE have nothing to serve (405): stateless requests are POSTs.
      .get(...before, sessions.resolve, async (req, res, next) => ((await sessions.stream(req, res)) ? undefined : next()), methodNotAllowed)
      .delete(...before, sessions.resolve, async (_req, res, next) => ((await sessions.delete(res)) ? undefined : next()), methodNotAllowed)
      .all(...before, methodNotAllowed);
  }

  private async post(req: Request, res: Response): Promise<void> {
    const format = responseFormat(req.headers.accept);
    if (format === null) {
      return sendRpcError(res, 406, null, RPC.SERVER_ERROR, 'Not Acceptable: accept application/json or text/event-stream');
    }
    const principal = principalOf(res.locals);
    const messages = messagesOf(res.locals);
    if (refuseInvalidParams(messages, res)) return;
    if (this.sessions.concerns(res, messages) && (await this.sessions.tryServe(req, res, messages))) return;
    const view = viewOf(res.locals);
    const session = sessionOf(res.locals);
    const oauth = this.oauth;
    const challenge = oauth && ((value: string): string => oauth.challenge(value, view?.server ?? undefined));
    const calls = await authorizeToolCalls(this.authorize, principal, messages, res, (call) => this.recorder.denied(principal, originOf(req), call), view, challenge);
    if (calls === null) return;
    if (calls.size > 0) await this.usage.chargeToolCalls(principal, messages);
    // The fast paths answer /mcp's view (built-in tools, namespaced upstreams); a single server's endpoint has its own names.
    // An SSE answer in a session is the SDK transport's: it starts with the priming event and lands in the session's log.
    const fast = view === undefined && !(session !== undefined && format === 'sse');
    if (fast && (await this.fastPath.tryServe(req, res, principal, messages, format))) return;
    // Only a POST that calls tools needs its origin (req.ip walks the proxy settings).
    const origin = calls.size > 0 ? originOf(req) : NO_ORIGIN;
    if (fast && (await this.callFastPath.tryServe(req, res, principal, messages, format, calls, origin))) return;
    // In a session, a call of an upstream tool is answered as a stream whenever the client takes one, to carry what the upstream sends meanwhile.
    const relay = session !== undefined && callsUpstream(calls) && acceptsEventStream(req.headers.accept);
    const declared = await this.servers.declaredFor(principal, messages, view);
    const server = this.servers.create(principal, calls, messages.length, origin, session ? { id: session.id, relay } : undefined, view, declared);
    const answer = relay ? 'sse' : format;
    await serveStreamableHttp(server, req, res, req.body, answer, session !== undefined && answer === 'sse' ? this.sessions.resumablePost(session, messages) : undefined);
  }
}

function callsUpstream(calls: AllowedCalls): boolean {
  for (const target of calls.values()) if (target?.kind === 'external') return true;
  return false;
}

function originOf(req: Request): AuditOrigin {
  return { requestId: requestIdOf(req) ?? null, ip: req.ip ?? null };
}

const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  sendRpcError(res, 405, null, RPC.SERVER_ERROR, 'Method Not Allowed: without Mcp-Session-Id only POST is served; GET streams and DELETE need a session');
};
