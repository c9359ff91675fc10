import { Request, Response } from 'express';
import { scrubSecrets } from '../edge/secret-scrubbing';
import type { McpRequestTrace } from '../observability/tracing';

/** A tool name is the client's text: bounded, and masked should a key or a JWT be pasted into it. */
const MAX_TARGET_CHARS = 128;

/**
 * What the MCP span of a lone JSON-RPC request records (a batch has none):
 * the method, id, tool or prompt name, protocol version and session id,
 * and the _meta whose trace context it continues. Never the arguments.
 */
export function mcpRequestTraceOf(req: Request, res?: Response): McpRequestTrace | undefined {
  const body = req.body as { method?: unknown; id?: unknown; params?: unknown } | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof body.method !== 'string') return undefined;
  const params = (typeof body.params === 'object' && body.params !== null ? body.params : {}) as { name?: unknown; _meta?: unknown };
  const version = req.headers['mcp-protocol-version'];
  const session = req.headers['mcp-session-id'];
  return {
    method: body.method,
    ...((typeof body.id === 'string' || typeof body.id === 'number') && { id: body.id }),
    ...(typeof params.name === 'string' &&
      (body.method === 'tools/call' || body.method === 'prompts/get') && { target: scrubSecrets(params.name.slice(0, MAX_TARGET_CHARS)) }),
    ...(typeof version === 'string' && { protocolVersion: version }),
    ...(typeof session === 'string' && { sessionId: session }),
    ...(res?.locals.principal !== undefined && { userId: res.locals.principal.userId }),
    meta: params._meta,
    // A refusal (403 insufficient scope, 429, 503) is an HTTP status; the JSON-RPC errors answered 200 are not told apart here.
    ...(res !== undefined && { failure: () => (res.statusCode >= 400 ? String(res.statusCode) : undefined) }),
  };
}
