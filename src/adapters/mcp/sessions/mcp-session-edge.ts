import { Request, RequestHandler, Response } from 'express';
import { InitializeRequestSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/core';
import { JSONRPCMessage, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { RpcMessage, SessionBus } from '../../../application/ports/session-bus.port';
import { EndMcpSession } from '../../../application/use-cases/gateway/mcp-sessions/end-mcp-session.use-case';
import { OpenMcpSession } from '../../../application/use-cases/gateway/mcp-sessions/open-mcp-session.use-case';
import { ResumeMcpSession } from '../../../application/use-cases/gateway/mcp-sessions/resume-mcp-session.use-case';
import { KeyPrincipal } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { ValidationError } from '../../../domain/errors';
import { McpSession } from '../../../domain/mcp-session';
import { principalOf } from '../../edge/api-key-auth';
import { ResponseLocals } from '../../edge/response-locals';
import { unchecked } from '../../unchecked';
import { RPC, sendRpcError } from '../json-rpc';
import { endpointOf, viewOf } from '../server-view';
import { NAMESPACED_VIEW } from '../../../application/use-cases/gateway/external/upstream-view';
import { StreamHolder } from '../notifications/upstream-notification-streams';
import { toMcpError } from '../mcp-error-map';
import { parseLastEventId } from './post-stream-event-id';
import { PostStreams, ResumablePost } from './post-streams';
import { SessionStreams } from './session-streams';

export const SESSION_HEADER = 'mcp-session-id';
/** The SDK's code for an unknown session. */
const SESSION_NOT_FOUND = -32001;

export function sessionOf(locals: ResponseLocals): McpSession | undefined {
  return locals.session;
}

/**
 * Sessions at the /mcp edge: which session a request belongs to (404 when
 * none of the key's), initialize opening one, DELETE ending it, GET opening
 * its stream, and client answers and notifications handed to the session bus.
 * A request without Mcp-Session-Id passes through untouched: no look-up.
 * A session belongs to the endpoint that opened it (/mcp or one
 * /mcp/servers/<name>) and is 404 on every other.
 */
/** What McpSessionEdge is built from (the gateway-sessions module builds it). */
export interface McpSessionEdgeOptions {
  resume: ResumeMcpSession;
  openSession: OpenMcpSession;
  endSession: EndMcpSession;
  bus: SessionBus;
  streams: SessionStreams;
  posts: PostStreams;
  /** While this replica holds a session's stream, it also holds that session's upstream streams. */
  upstreamStreams: { attach(holder: StreamHolder): () => void };
  log: (error: unknown) => void;
}

export class McpSessionEdge {
  constructor(private readonly deps: McpSessionEdgeOptions) {}

  /** After the key: puts the request's session on res.locals, or answers 404 (malformed, unknown, another key's, ended, idle alike). */
  readonly resolve: RequestHandler = (req, res, next) => {
    const token = req.headers[SESSION_HEADER];
    // Stateless requests pay one header read: no promise, no look-up.
    if (token === undefined) return next();
    return this.resolveSession(token, req, res, next);
  };

  /** Whether a POST's messages are the sessions' business: it names a session, or opens one. */
  concerns(res: Response, messages: JSONRPCMessage[]): boolean {
    return res.locals.session !== undefined || messages.some((m) => (m as { method?: unknown }).method === 'initialize');
  }

  /** DELETE /mcp with a session: ends it everywhere (204); false without one, for the 405. */
  async delete(res: Response): Promise<boolean> {
    const session = sessionOf(res.locals);
    if (!session) return false;
    await this.deps.endSession.execute({ session });
    res.status(204).end();
    return true;
  }

  /**
   * GET /mcp with a session: its standalone SSE stream, or the rest of a
   * POST's SSE answer when Last-Event-ID names one of its events; false
   * without a session, for the 405.
   */
  async stream(req: Request, res: Response): Promise<boolean> {
    const session = sessionOf(res.locals);
    // Express routes HEAD to GET handlers; a stream without a body makes no sense.
    if (!session || req.method !== 'GET') return false;
    if (!acceptsEventStream(req.headers.accept)) {
      sendRpcError(res, 406, null, RPC.SERVER_ERROR, 'Not Acceptable: a stream needs Accept: text/event-stream');
      return true;
    }
    // A malformed Last-Event-ID replays nothing: the standalone stream starts with what comes next.
    const last = parseLastEventId(req.headers['last-event-id']);
    if (last?.stream != null) {
      await this.deps.streams.resume(res, session, last.stream, last.seq);
      return true;
    }
    // While this replica holds the stream, it also holds the session's upstream streams, whose notifications it relays.
    const holder = { sessionId: session.id, keyId: session.keyId, userId: session.userId, view: viewOf(res.locals) ?? NAMESPACED_VIEW };
    await this.deps.streams.serve(res, session, last?.seq ?? null, () => this.deps.upstreamStreams.attach(holder));
    return true;
  }

  /** What makes the SSE answer to a POST in `session` resumable (its own stream in the session's log). */
  resumablePost(session: McpSession, messages: JSONRPCMessage[]): ResumablePost {
    return this.deps.posts.open(session, messages);
  }

  /**
   * What a POST's messages mean for sessions, answered here when they need
   * nothing else: initialize in a batch or inside a session (400), a client's
   * answers and notifications in a session (to the bus, 202). A lone
   * initialize outside a session opens one and sets Mcp-Session-Id; false
   * lets the POST go on.
   */
  async tryServe(req: Request, res: Response, messages: JSONRPCMessage[]): Promise<boolean> {
    const session = sessionOf(res.locals);
    const initialize = messages.findIndex((m) => (m as { method?: unknown }).method === 'initialize' && 'id' in m);
    if (initialize >= 0) {
      const id = (messages[initialize] as { id: string | number }).id;
      if (messages.length > 1 || Array.isArray(req.body)) {
        sendRpcError(res, 400, null, RPC.INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, not in a batch');
        return true;
      }
      if (session) {
        sendRpcError(
          res,
          400,
          id,
          RPC.INVALID_REQUEST,
          'Invalid Request: this session is already initialized; send initialize without Mcp-Session-Id',
        );
        return true;
      }
      return this.open(res, principalOf(res.locals), messages[0] as { id: string | number; params?: unknown }, endpointOf(res.locals));
    }
    if (!session) return false;
    const fromClient = messages.filter((m) => !('method' in m && 'id' in m));
    if (fromClient.length > 0) await Promise.all(fromClient.map((m) => this.deps.bus.deliver(session.id, m as unknown as RpcMessage)));
    if (fromClient.length < messages.length) return false;
    res.status(202).end();
    return true;
  }

  private async resolveSession(token: string | string[], req: Request, res: Response, next: () => void): Promise<void> {
    // As the SDK answers POSTs; GET, DELETE and the 202 path never reach it. Absent: the session's version is assumed.
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      return sendRpcError(
        res,
        400,
        null,
        RPC.SERVER_ERROR,
        `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    const { keyId, accessToken } = principalOf(res.locals);
    const session =
      typeof token === 'string'
        ? await this.deps.resume.execute({ token, keyId, endpoint: endpointOf(res.locals), expiresAt: accessToken?.expiresAt })
        : null;
    if (session === null) return sendRpcError(res, 404, null, SESSION_NOT_FOUND, 'Session not found');
    res.locals.session = session;
    next();
  }

  private async open(
    res: Response,
    principal: KeyPrincipal,
    request: { id: string | number; params?: unknown },
    endpoint: string | undefined,
  ): Promise<boolean> {
    // A malformed initialize is left for the SDK to refuse, and opens nothing: both schemas its transport and server parse with.
    if (!JSONRPCRequestSchema.safeParse(request).success || !InitializeRequestSchema.safeParse(request).success) return false;
    const params = request.params as Record<string, unknown>;
    const requested = params.protocolVersion as string;
    try {
      const { token } = await this.deps.openSession.execute({
        keyId: principal.keyId,
        userId: principal.userId,
        scopes: principal.scopes,
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
        clientCapabilities: unchecked(params.capabilities),
        clientInfo: unchecked(params.clientInfo),
        endpoint,
        expiresAt: principal.accessToken?.expiresAt,
      });
      res.setHeader('Mcp-Session-Id', token);
    } catch (error) {
      // Faults (the database away) go to the edge's error map like any other request's.
      if (!(error instanceof ValidationError)) throw error;
      const rpc = toMcpError(error, this.deps.log);
      sendRpcError(res, 400, request.id, rpc.code, rpc.message, rpc.data);
      return true;
    }
    return false;
  }
}

export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const refused = params.some((p) => p.startsWith('q=') && Number(p.slice(2)) === 0);
    return !refused && (type === 'text/event-stream' || type === 'text/*' || type === '*/*');
  });
}
