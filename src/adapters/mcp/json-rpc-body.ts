import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { JSONRPCMessage, RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';
import { MAX_ECHO_LENGTH } from '../../domain/errors';
import { findJsonProblem } from '../../domain/json-value';
import { ResponseLocals } from '../edge/response-locals';
import { RPC, RpcId, sendRpcError } from './json-rpc';
import { hasBody, mediaTypeVerdict, readUtf8Json } from './utf8-json-body';

/** Tool data can be larger than a key-management body; 1 MiB bounds it. */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The most messages one batch may hold. Each is answered, so a batch of 100
 * tools/list (5 KB sent) once got 529 KB back. MCP 2025-06-18 dropped
 * batching; clients of 2025-03-26 and older may still send them.
 */
export const MAX_BATCH_MESSAGES = 10;

/** Every answer repeats the id, so a string id is held to what an error may quote of the input. */
const MAX_ID_LENGTH = MAX_ECHO_LENGTH;
const idFits = (id: unknown) => typeof id !== 'string' || id.length <= MAX_ID_LENGTH;

// strict: false so that a JSON value that is not an object (`5`, `"x"`) reaches
// the shape check and gets -32600 rather than -32700. Only for the bodies the
// reader below leaves to it: compressed, or in a charset other than UTF-8.
const parseJson = express.json({ limit: MCP_MAX_BODY_BYTES, strict: false, type: () => true });

/**
 * Parses a POST /mcp body into JSON-RPC messages on res.locals.messages,
 * answering as JSON-RPC: 415 for a non-JSON media type, 413 past
 * MCP_MAX_BODY_BYTES, -32700 for bytes that are not JSON, -32600 for JSON
 * that is not a message or batch of messages, -32600 for a batch of more than
 * MAX_BATCH_MESSAGES, -32602 for a message nested deeper than MAX_JSON_DEPTH,
 * before anything runs. A plain UTF-8 body, what every MCP client sends, is
 * read here (body-parser's layers cost as much as a tools/list's answer);
 * the rare compressed or otherwise encoded one goes through body-parser.
 */
export const jsonRpcBody: RequestHandler = (req, res, next) => {
  // Without a body there is no media type to check: it fails below as unparseable.
  if (!hasBody(req)) return sendRpcError(res, 400, null, RPC.PARSE_ERROR, 'Parse error: the body is not valid JSON');
  const contentType = req.headers['content-type'];
  const verdict = contentType === undefined ? 'not-json' : mediaTypeVerdict(contentType);
  if (verdict === 'not-json') {
    return sendRpcError(res, 415, null, RPC.SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
  }
  const encoding = req.headers['content-encoding'];
  if (verdict === 'other-json' || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) {
    return parseJson(req, res, (error?: { type?: string }) => {
      if (error?.type === 'entity.too.large') return tooLarge(res);
      if (error || req.body === undefined) return sendRpcError(res, 400, null, RPC.PARSE_ERROR, 'Parse error: the body is not valid JSON');
      acceptMessages(req, res, next);
    });
  }
  readUtf8Json(req, MCP_MAX_BODY_BYTES).then((outcome) => {
    if (outcome.kind === 'gone') return;
    if (outcome.kind === 'too-large') return tooLarge(res);
    if (outcome.kind === 'unparseable') return sendRpcError(res, 400, null, RPC.PARSE_ERROR, 'Parse error: the body is not valid JSON');
    req.body = outcome.value;
    acceptMessages(req, res, next);
  }, next);
};

function tooLarge(res: Response): void {
  // The rest of the body is not read: the connection closes after the answer instead.
  res.setHeader('Connection', 'close');
  sendRpcError(res, 413, null, RPC.SERVER_ERROR, `Request body exceeds ${MCP_MAX_BODY_BYTES} bytes`);
}

function acceptMessages(req: Request, res: Response, next: NextFunction): void {
  // Only an array can be a batch: a lone request pays one type test for this.
  if (Array.isArray(req.body) && req.body.length > MAX_BATCH_MESSAGES) {
    return sendRpcError(
      res,
      400,
      null,
      RPC.INVALID_REQUEST,
      `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages (MAX_BATCH_MESSAGES)`,
    );
  }
  const messages = asMessages(req.body);
  if (messages === null) {
    return sendRpcError(
      res,
      400,
      idOf(req.body),
      RPC.INVALID_REQUEST,
      `Invalid Request: expected a JSON-RPC 2.0 message object, any string id at most ${MAX_ID_LENGTH} characters`,
    );
  }
  for (const message of messages) {
    const tooDeep = findJsonProblem(message, '');
    if (tooDeep)
      return sendRpcError(res, 400, idOf(message), RPC.INVALID_PARAMS, `Invalid params: ${tooDeep.field} ${tooDeep.message}`, [tooDeep]);
  }
  res.locals.messages = messages;
  next();
}

export function messagesOf(locals: ResponseLocals): JSONRPCMessage[] {
  if (locals.messages === undefined) throw new Error('No messages on this request: jsonRpcBody must run first');
  return locals.messages;
}

function asMessages(body: unknown): JSONRPCMessage[] | null {
  // The common case, one plain request, is checked by hand: the schema's union parse costs more than the rest of a tools/list.
  if (isPlainRequest(body)) return [body];
  const candidates = Array.isArray(body) ? body : [body];
  if (candidates.length === 0) return null;
  const parsed = candidates.map((m) => JSONRPCMessageSchema.safeParse(m));
  return parsed.every((p) => p.success && idFits((p.data as { id?: unknown }).id)) ? parsed.map((p) => p.data!) : null;
}

/** The id of an invalid request, when it has a usable one, so the client can match the error. */
function idOf(body: unknown): RpcId {
  const id = (body as { id?: unknown } | null)?.id;
  return (typeof id === 'string' || typeof id === 'number') && idFits(id) ? id : null;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * A request the SDK's strict request schema accepts as it is: only jsonrpc
 * "2.0", a string method, a short string or integer id, and params absent or
 * a plain object whose _meta, if any, is a plain object without the two keys
 * the schema checks (every 2026-07-28 request has a _meta, its envelope).
 * Anything else goes through the schema.
 */
export function isPlainRequest(body: unknown): body is JSONRPCMessage {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const m = body as Record<string, unknown>;
  for (const key in m) if (!REQUEST_KEYS.has(key)) return false;
  const params = m.params;
  return (
    m.jsonrpc === '2.0' &&
    typeof m.method === 'string' &&
    (typeof m.id === 'string' || (typeof m.id === 'number' && Number.isSafeInteger(m.id))) &&
    idFits(m.id) &&
    (params === undefined || (isPlainObject(params) && (!('_meta' in params) || plainMeta(params._meta))))
  );
}

/** The keys of _meta the request schema checks (a loose object: it lets any other key through unchanged). */
const CHECKED_META_KEYS = ['progressToken', RELATED_TASK_META_KEY];

function plainMeta(meta: unknown): boolean {
  return isPlainObject(meta) && !CHECKED_META_KEYS.some((key) => key in meta);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
