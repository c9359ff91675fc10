import { Request, RequestHandler, Response, Router } from 'express';
import { AuthorizeToolCall } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AuditOrigin, NO_ORIGIN } from '../../domain/audit';
import { apiKeyAuth, principalOf } from '../edge/api-key-auth';
import { logOf, requestIdOf } from '../edge/request-logging';
import { RPC, RpcId, sendRpcError } from './json-rpc';
import { jsonRpcBody, messagesOf } from './json-rpc-body';
import { McpServerFactory } from './mcp-server.factory';
import { modernUnavailable } from './mcp-error-map';
import { RpcError } from './rpc-error';
import { refuseInvalidParams } from './params-check';
import { RequestGuardOptions, requestGuard } from './request-guard';
import { responseFormat, serveStreamableHttp } from './streamable-http';
import { ToolCallRecorder } from './tool-call-recorder';
import { AllowedCalls, authorizeToolCalls } from './tool-gate';
import { ToolsCallFastPath } from './tools-call-fast-path';
import { ToolsListFastPath } from './tools-list-fast-path';
import { UsageGate } from '../edge/usage-gate';
import { requestBase } from './request-base';
import { acceptsEventStream, McpSessionEdge, sessionOf } from './sessions/mcp-session-edge';
import { SessionToolCallFastPath } from './sessions/session-tool-call-fast-path';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { serverView, viewOf } from './server-view';
import { McpOAuth } from './oauth/mcp-oauth';
import { eraOf, EraVerdict } from './era/era-gate';
import { eraHeadersOf, namesModernRevision } from './era/era-headers';
import { sendModernError } from './era/modern-answer';
import { retryParamsRefusal } from './era/retry-params';
import { logLevelOf } from './modern/forwarded-meta';
import { ModernHttp } from './modern/modern-http';
import type { Tracing } from '../observability/tracing';
import { mcpRequestTraceOf } from './mcp-request-trace';
import { ClaimToolCallApproval } from '../../application/use-cases/approvals/claim-tool-call-approval.use-case';

/** What McpController is built from (the container builds it, gateway.module.ts). */
export interface McpControllerOptions {
  validateKey: ValidateKey;
  authorize: AuthorizeToolCall;
  servers: McpServerFactory;
  /** The Origin and Host checks. */
  guard: RequestGuardOptions;
  listFastPath: ToolsListFastPath;
  recorder: ToolCallRecorder;
  callFastPath: ToolsCallFastPath;
  usage: UsageGate;
  sessions: McpSessionEdge;
  findView: FindServerView;
  /** The 2026-07-28 leg: stateless, the SDK v2's entry after keygate's own gates. */
  modern: ModernHttp;
  /** With MCP_RESOURCE_URL: access tokens besides keys, and the resource metadata URL in every challenge. */
  oauth?: McpOAuth;
  /** Per-call approvals: a key's call a require_approval rule holds asks for one (tool-gate.ts); absent, it is refused. */
  approvals?: ClaimToolCallApproval;
  /** A lone upstream tools/call in a session, streamed without an SDK server. */
  sessionCallFastPath: SessionToolCallFastPath;
  /** An MCP span per JSON-RPC request when on; NO_TRACING when left out. */
  tracing?: Tracing;
}

/**
 * /mcp over MCP Streamable HTTP: stateless without Mcp-Session-Id, as ever;
 * with one, the session's (sessions/mcp-session-edge.ts). In order: Origin/Host check (403),
 * the API key, or with OAuth on a user's access token (401, whatever the body; oauth/mcp-oauth.ts), the body as JSON-RPC (-32700, -32600),
 * params the SDK would refuse badly (-32602), the tool-call scope gate (403,
 * and each call's target found once), the key's rate limit (429, counted
 * right after the key) and quota (429, charged before any call runs), then
 * a lone tools/list or built-in tools/call answered without the SDK, or else
 * the SDK server bound to the key, which runs the targets the gate found.
 * Once the body is parsed, the era gate (era/era-gate.ts) decides its era:
 * 2025 goes on as above; a 2026-07-28 request (its version in _meta, its
 * headers checked against the body first) runs the same gates without any
 * session and is answered by the SDK v2 (modern/modern-http.ts); an outage
 * it meets on the way is 503 with its id (answerModernFailure).
 */
/** The POST handlers of /mcp and /mcp/servers/:name, in order, for serving them ahead of the router (hot-post-routes.ts). */
export interface McpPostRoutes {
  mcp: RequestHandler[];
  servers: RequestHandler[];
}

export class McpController {
  constructor(private readonly options: McpControllerOptions) {}

  /**
   * Mounts /mcp on `app` as a single route (no nested router to walk on the
   * hot path), with `first` (the failed-validation limit) ahead of the checks;
   * and /mcp/servers/:name, the same pipeline over one upstream server's view
   * (its 404 after the key and the rate limit, before any session).
   */
  mount(app: Router, ...first: RequestHandler[]): McpPostRoutes {
    const credentials = this.options.oauth?.authenticate ?? apiKeyAuth(this.options.validateKey);
    const before = [...first, requestGuard(this.options.guard), credentials, this.options.usage.admitMcpRequest];
    const servers = [...before, serverView(this.options.findView)];
    // The same POST handlers serve the router's route and the way ahead of it (hot-post-routes.ts).
    const posts = { mcp: this.posted(before), servers: this.posted(servers) };
    this.route(app, '/mcp', before, posts.mcp);
    this.route(app, '/mcp/servers/:name', servers, posts.servers);
    return posts;
  }

  /** A POST's handlers after `before`: the session unless the request is 2026, the body, then dispatch. */
  private posted(before: RequestHandler[]): RequestHandler[] {
    return [...before, this.resolveUnlessModern, jsonRpcBody, (req, res) => this.dispatch(req, res)];
  }

  private route(app: Router, path: string, before: RequestHandler[], posted: RequestHandler[]): void {
    const sessions = this.options.sessions;
    // The session (404) is looked up after the key, and only when the request names one.
    app
      .route(path)
      .post(...posted)
      // Without Mcp-Session-Id, GET and DELETE have nothing to serve (405): stateless requests are POSTs.
      .get(
        ...before,
        sessions.resolve,
        async (req, res, next) => ((await sessions.stream(req, res)) ? undefined : next()),
        methodNotAllowed,
      )
      .delete(...before, sessions.resolve, async (_req, res, next) => ((await sessions.delete(res)) ? undefined : next()), methodNotAllowed)
      .all(...before, methodNotAllowed);
  }

  /** A challenge names the metadata of the endpoint asked: /mcp's, or /mcp/servers/<name>'s own. */
  private challengeFor(view: ReturnType<typeof viewOf>): ((value: string) => string) | undefined {
    const oauth = this.options.oauth;
    return oauth && ((value: string): string => oauth.challenge(value, view?.server ?? undefined));
  }

  /**
   * A POST whose MCP-Protocol-Version names a 2026 revision reads no session:
   * the body decides its era, and a 2026 request has none (its Mcp-Session-Id
   * is ignored). Should the body turn out 2025 after all, dispatch looks the
   * session up then, as before.
   */
  private readonly resolveUnlessModern: RequestHandler = (req, res, next) => {
    if (!namesModernRevision(req.headers)) return this.options.sessions.resolve(req, res, next);
    res.locals.sessionDeferred = true;
    next();
  };

  /** With tracing on, a lone request runs in its MCP span (mcp-request-trace.ts). */
  private dispatch(req: Request, res: Response): Promise<void> {
    const tracing = this.options.tracing;
    if (tracing?.on !== true) return this.dispatchEra(req, res);
    const request = mcpRequestTraceOf(req, res);
    return request === undefined ? this.dispatchEra(req, res) : tracing.mcpRequest(request, () => this.dispatchEra(req, res));
  }

  /** The era gate: 2025 requests go on as ever, 2026 ones to the modern leg, the rest get the gate's error (id echoed). */
  private async dispatchEra(req: Request, res: Response): Promise<void> {
    const verdict = eraOf({ httpMethod: 'POST', headers: eraHeadersOf(req.headers), body: req.body });
    if (verdict.era === 'rejected') return sendModernError(res, verdict.rejection);
    if (verdict.era === 'modern')
      return this.postModern(req, res, verdict).catch((error) => answerModernFailure(req, res, error, verdict.id));
    if (res.locals.sessionDeferred === true) {
      let passed = false;
      await this.options.sessions.resolve(req, res, () => void (passed = true));
      if (!passed) return;
    }
    return this.post(req, res);
  }

  /**
   * A 2026-07-28 message, stateless: no session is read or opened. The same
   * gates as post() in the same order (the header checks already ran in the
   * era gate, before any scope decision), then the SDK v2 server bound to the key.
   */
  private async postModern(req: Request, res: Response, { method, id, kind }: ModernVerdict): Promise<void> {
    const format = responseFormat(req.headers.accept);
    if (format === null) {
      return sendModernError(res, {
        httpStatus: 406,
        id,
        code: RPC.SERVER_ERROR,
        message: 'Not Acceptable: accept application/json or text/event-stream',
      });
    }
    const principal = principalOf(res.locals);
    const messages = messagesOf(res.locals);
    if (refuseInvalidParams(messages, res)) return;
    // The retry fields are reserved on requests only; a notification may use the names as it likes.
    const retry = kind === 'request' ? retryParamsRefusal(id, (req.body as { params?: unknown }).params) : undefined;
    if (retry) return sendModernError(res, retry);
    const view = viewOf(res.locals);
    const calls = await authorizeToolCalls(
      this.options.authorize,
      principal,
      messages,
      res,
      (call) => this.options.recorder.denied(principal, originOf(req), call),
      view,
      this.challengeFor(view),
      this.options.approvals,
      () => originOf(req),
    );
    if (calls === null) return;
    if (calls.size > 0) await this.options.usage.chargeToolCalls(principal, messages, (name) => (calls.get(name) ?? null) !== null);
    const origin = calls.size > 0 ? originOf(req) : NO_ORIGIN;
    const streams = acceptsEventStream(req.headers.accept);
    const logLevel = logLevelOf((req.body as { params?: { _meta?: Record<string, unknown> } }).params?._meta);
    await this.options.modern.serve(
      req,
      res,
      {
        principal,
        method,
        calls,
        origin,
        view,
        streams,
        ...(logLevel !== undefined && { logLevel }),
        ...(calls.size > 0 && { connectBase: requestBase(req) }),
      },
      format,
    );
  }

  private async post(req: Request, res: Response): Promise<void> {
    const format = responseFormat(req.headers.accept);
    if (format === null) {
      return sendRpcError(res, 406, null, RPC.SERVER_ERROR, 'Not Acceptable: accept application/json or text/event-stream');
    }
    const principal = principalOf(res.locals);
    const messages = messagesOf(res.locals);
    if (refuseInvalidParams(messages, res)) return;
    if (this.options.sessions.concerns(res, messages) && (await this.options.sessions.tryServe(req, res, messages))) return;
    const view = viewOf(res.locals);
    const session = sessionOf(res.locals);
    const calls = await authorizeToolCalls(
      this.options.authorize,
      principal,
      messages,
      res,
      (call) => this.options.recorder.denied(principal, originOf(req), call),
      view,
      this.challengeFor(view),
      this.options.approvals,
      () => originOf(req),
    );
    if (calls === null) return;
    if (calls.size > 0) await this.options.usage.chargeToolCalls(principal, messages, (name) => (calls.get(name) ?? null) !== null);
    // The fast paths answer /mcp's view (built-in tools, namespaced upstreams); a single server's endpoint has its own names.
    // An SSE answer in a session starts with the priming event and is resumable (sessions/post-streams.ts): not these fast paths'.
    const fast = view === undefined && !(session !== undefined && format === 'sse');
    if (fast && (await this.options.listFastPath.tryServe(req, res, principal, messages, format))) return;
    // Only a POST that calls tools needs its origin (req.ip walks the proxy settings).
    const origin = calls.size > 0 ? originOf(req) : NO_ORIGIN;
    if (fast && (await this.options.callFastPath.tryServe(req, res, principal, messages, format, calls, origin))) return;
    // In a session, a call of an upstream tool is answered as a stream whenever the client takes one, to carry what the upstream sends meanwhile.
    const relay = session !== undefined && callsUpstream(calls) && acceptsEventStream(req.headers.accept);
    if (relay && (await this.options.sessionCallFastPath.tryServe(req, res, principal, messages, calls, origin, session))) return;
    const declared = await this.options.servers.declaredFor(principal, messages, view);
    const server = this.options.servers.create(
      principal,
      calls,
      messages.length,
      origin,
      session ? { id: session.id, relay, ...(session.urlElicitation === true && { connectBase: requestBase(req) }) } : undefined,
      view,
      declared,
    );
    const answer = relay ? 'sse' : format;
    await serveStreamableHttp(
      server,
      req,
      res,
      req.body,
      answer,
      session !== undefined && answer === 'sse' ? this.options.sessions.resumablePost(session, messages) : undefined,
    );
  }
}

type ModernVerdict = Extract<EraVerdict, { era: 'modern' }>;

/**
 * An outage met anywhere on the 2026 leg once the body was read (the gates,
 * a fast path, a listen, the SDK leg) is answered as the error map says,
 * with the request's id (modernUnavailable); anything else goes on to the
 * edge's error handler. What runs before the body (the key, the rate limit,
 * the server record) has no id to echo and answers its problem document.
 */
function answerModernFailure(req: Request, res: Response, error: unknown, id: RpcId): void {
  const answer = res.headersSent ? undefined : modernUnavailable(error, id);
  if (answer === undefined) throw error;
  // An RpcError was logged where a handler mapped it; a raw one is logged here, as the edge's error handler would.
  if (!(error instanceof RpcError)) logOf(req).error({ err: error }, 'request failed');
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  sendModernError(res, answer.rejection);
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
  sendRpcError(
    res,
    405,
    null,
    RPC.SERVER_ERROR,
    'Method Not Allowed: without Mcp-Session-Id only POST is served; GET streams and DELETE need a session',
  );
};
