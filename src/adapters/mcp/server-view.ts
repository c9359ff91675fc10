import { RequestHandler } from 'express';
import { UpstreamView } from '../../application/use-cases/gateway/external/upstream-view';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { principalOf } from '../edge/api-key-auth';
import { ResponseLocals } from '../edge/response-locals';
import { RPC, RpcId, sendRpcError } from './json-rpc';
import { jsonRpcBody, messagesOf } from './json-rpc-body';

/** The view of the endpoint a request came to; undefined on /mcp, whose view the use-cases take by default. */
export function viewOf(locals: ResponseLocals): UpstreamView | undefined {
  return locals.view;
}

/** What a session is bound to (sessionTokenKey): nothing on /mcp, `servers/<name>` on a single server's endpoint. */
export function endpointOf(locals: ResponseLocals): string | undefined {
  const server = viewOf(locals)?.server;
  return server ? `servers/${server}` : undefined;
}

/**
 * After the key on /mcp/servers/:name: puts that server's view on
 * res.locals, or answers 404 when the key's owner has no server of that name
 * (malformed, unknown and another user's alike). Only after the key, so that
 * nobody without one learns which names exist. A POST's 404 echoes its
 * request's id (2026-07-28: every error answer does), so its body is read
 * first, within the same limits and with the same errors as any POST.
 */
export function serverView(find: FindServerView): RequestHandler {
  return async (req, res, next) => {
    const view = await find.execute({ userId: principalOf(res.locals).userId, name: req.params.name as string });
    if (view !== null) {
      res.locals.view = view;
      return next();
    }
    if (req.method !== 'POST') return notFound(res, null);
    jsonRpcBody(req, res, (error?: unknown) => (error ? next(error) : notFound(res, soleRequestId(messagesOf(res.locals)))));
  };
}

function notFound(res: Parameters<RequestHandler>[1], id: RpcId): void {
  sendRpcError(res, 404, id, RPC.SERVER_ERROR, 'Not Found: no MCP server of that name');
}

/** A batch has no one id to echo, nor has a notification. */
function soleRequestId(messages: readonly unknown[]): RpcId {
  const id = messages.length === 1 ? (messages[0] as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
