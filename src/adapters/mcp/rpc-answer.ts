import { Response } from 'express';
import { RpcId } from './json-rpc';
import { RpcError } from './rpc-error';
import { ResponseFormat } from './streamable-http';

/**
 * The headers the SDK's Streamable HTTP transport answers a request with, in
 * the order our transport adapter copies them (sorted, lower case): the fast
 * paths answer with the same ones.
 */
const JSON_HEADERS = [['content-type', 'application/json']] as const;
const SSE_HEADERS = [
  ['cache-control', 'no-cache, no-transform'],
  ['connection', 'keep-alive'],
  ['content-type', 'text/event-stream'],
  ['x-accel-buffering', 'no'],
] as const;

/** Starts an SSE answer with the head the SDK's transport gives one (sent with the first event). */
export function writeSseHead(res: Response): void {
  res.statusCode = 200;
  for (const [name, value] of SSE_HEADERS) res.setHeader(name, value);
}

/** A JSON-RPC result as the SDK's Protocol puts it on the wire, keys in its order. */
export function rpcResult(id: RpcId, result: unknown): string {
  return JSON.stringify({ result, jsonrpc: '2.0', id });
}

/** A handler's error as the SDK's Protocol puts it on the wire. */
export function rpcFailure(id: RpcId, error: RpcError): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) },
  });
}

/**
 * Writes one JSON-RPC answer as the SDK transport would over HTTP 200: the
 * message as a JSON body, or as one `message` event of an SSE stream that then
 * ends. One write, with a Content-Length, where the transport streams it
 * chunked: the bytes of the message are the same.
 */
export function writeRpcAnswer(res: Response, format: ResponseFormat, message: string): void {
  res.statusCode = 200;
  for (const [name, value] of format === 'json' ? JSON_HEADERS : SSE_HEADERS) res.setHeader(name, value);
  // res.end with a string and no Content-Length set: Node adds the Content-Length itself.
  res.end(format === 'json' ? message : `event: message\ndata: ${message}\n\n`);
}
