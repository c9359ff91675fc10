import { ProtocolError } from '@modelcontextprotocol/client';
import { Agent, Dispatcher } from 'undici';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { SERVER_INFO } from '../mcp-server.factory';

const MODERN = '2026-07-28';
/** The id the SDK client gives the first request of a fresh Client: an answer handed to it must carry the same. */
const FIRST_ID = 0;
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
const INFO_KEYS: ReadonlySet<string> = new Set(['name', 'version', 'title']);
const RESULT_KEYS: ReadonlySet<string> = new Set(['content', 'isError', 'structuredContent', 'resultType', '_meta']);

/** A plain stateless tools/call of a 2026-07-28 upstream: no retry fields, no trace, no logLevel, no relay. */
export interface PlainCall {
  url: string;
  headers: Record<string, string>;
  name: string;
  arguments: Record<string, unknown> | undefined;
  clientCapabilities: Record<string, unknown>;
}

/** The upstream's answer: a plain complete result, its JSON-RPC error, or a reply only the SDK client reads (SSE, other statuses, other shapes). */
export type PostAnswer = { kind: 'result'; result: Record<string, unknown> } | { kind: 'reply'; response: Response } | { kind: 'resend' };

/**
 * The POST the SDK v2 client sends for a plain tools/call (same body bytes,
 * id 0, the same MCP headers and the record's headers), sent with undici's
 * dispatcher on the same pinned agent instead of fetch, web streams and a
 * Client per contact. A complete result made of text content, or a JSON-RPC
 * error, in a 200 JSON answer is read here; any other answer is handed back
 * whole (bytes already read included) for the SDK client to read as its own
 * request's answer, so what it does with SSE, statuses and odd results stays
 * the SDK's. A redirect is sent again by the SDK's fetch (which follows it).
 * The byte cap and the refusals are upstreamFetch's.
 */
export async function postPlainCall(
  agent: Agent,
  call: PlainCall,
  maxBytes: number,
  signal: AbortSignal,
  refuse: (refusal: UpstreamRefusal) => void,
): Promise<PostAnswer> {
  signal.throwIfAborted();
  const url = new URL(call.url);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: SERVER_INFO.name, version: SERVER_INFO.version },
    'io.modelcontextprotocol/clientCapabilities': call.clientCapabilities,
  };
  const body = JSON.stringify({
    method: 'tools/call',
    params: { name: call.name, arguments: call.arguments, _meta: meta },
    jsonrpc: '2.0',
    id: FIRST_ID,
  });
  let answer: Dispatcher.ResponseData;
  try {
    answer = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      body,
      signal,
      headers: {
        ...lowerCased(call.headers),
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': call.name,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'user-agent': 'undici',
      },
    });
  } catch (error) {
    const refusal = error instanceof UpstreamRefusal ? error : (error as { cause?: unknown }).cause;
    if (!(refusal instanceof UpstreamRefusal)) throw error;
    refuse(refusal);
    throw refusal;
  }
  const overLimit = () => {
    const refusal = new UpstreamRefusal(
      `upstream reply over MCP_UPSTREAM_MAX_BYTES (${maxBytes} bytes)`,
      `${url.host} sent a reply of more than ${maxBytes} bytes`,
    );
    refuse(refusal);
    return refusal;
  };
  const { statusCode, headers } = answer;
  if (statusCode >= 300 && statusCode < 400) {
    discard(answer.body);
    return { kind: 'resend' };
  }
  if (Number(headers['content-length'] ?? 0) > maxBytes) {
    discard(answer.body);
    throw overLimit();
  }
  const jsonAnswer =
    statusCode === 200 &&
    headers['content-encoding'] === undefined &&
    /^application\/json\s*(;|$)/i.test(String(headers['content-type'] ?? ''));
  if (!jsonAnswer) return { kind: 'reply', response: webResponse(statusCode, headers, answer.body, maxBytes, overLimit) };
  const bytes = await readCapped(answer.body, maxBytes, overLimit);
  const plain = plainAnswer(bytes);
  if (plain !== undefined) return plain;
  return { kind: 'reply', response: new Response(bytes, { status: statusCode, headers: webHeaders(headers) }) };
}

/** A complete result of text content, or an error, for id 0; undefined for anything else. */
function plainAnswer(bytes: Uint8Array): PostAnswer | undefined {
  let message: unknown;
  try {
    message = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.id !== FIRST_ID) return undefined;
  const { result, error } = message;
  if (
    error !== undefined &&
    result === undefined &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  ) {
    throw new ProtocolError(error.code as number, error.message, error.data);
  }
  if (error !== undefined || !isPlainResult(result)) return undefined;
  const { resultType: _type, ...rest } = result;
  return { kind: 'result', result: rest };
}

/** The shape the SDK's decoder passes on unchanged but for resultType: a complete result, text content only, known fields. */
function isPlainResult(result: unknown): result is Record<string, unknown> {
  if (!isObject(result) || result.resultType !== 'complete') return false;
  for (const key in result) if (!RESULT_KEYS.has(key)) return false;
  const { content, isError, structuredContent, _meta } = result;
  if (!Array.isArray(content) || !content.every(isTextContent)) return false;
  return (
    (isError === undefined || typeof isError === 'boolean') &&
    (structuredContent === undefined || isObject(structuredContent)) &&
    (_meta === undefined || isServerInfoMeta(_meta))
  );
}

/** A _meta of the upstream's serverInfo alone (what an SDK v2 server stamps), in a shape the SDK's schema takes. */
function isServerInfoMeta(meta: unknown): boolean {
  if (!isObject(meta)) return false;
  for (const key in meta) if (key !== SERVER_INFO_META) return false;
  const info = meta[SERVER_INFO_META];
  if (info === undefined) return true;
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  for (const key in info) if (!INFO_KEYS.has(key) || typeof info[key] !== 'string') return false;
  return true;
}

function isTextContent(item: unknown): boolean {
  if (!isObject(item) || item.type !== 'text' || typeof item.text !== 'string') return false;
  for (const key in item) if (key !== 'type' && key !== 'text') return false;
  return true;
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, overLimit: () => Error): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    seen += chunk.byteLength;
    if (seen > maxBytes) {
      discard(body);
      throw overLimit();
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** The answer as the SDK's fetch would have given it: the same headers, its body cut off past maxBytes. */
function webResponse(
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  overLimit: () => Error,
): Response {
  const nullBody = [101, 103, 204, 205, 304].includes(status);
  if (nullBody) discard(body);
  let seen = 0;
  const stream = nullBody
    ? null
    : new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { value, done } = await iterator.next();
            if (done) return controller.close();
            seen += value.byteLength;
            if (seen > maxBytes) {
              discard(body);
              return controller.error(overLimit());
            }
            controller.enqueue(new Uint8Array(value));
          } catch (error) {
            controller.error(error);
          }
        },
        cancel() {
          discard(body);
        },
      });
  const iterator = (body as AsyncIterable<Buffer, undefined>)[Symbol.asyncIterator]();
  return new Response(stream, { status, headers: webHeaders(headers) });
}

/** Stops reading a body that is not wanted; undici reports that as an error no one needs. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function webHeaders(headers: Dispatcher.ResponseData['headers']): Headers {
  const web = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) web.append(name, v);
    else if (value !== undefined) web.set(name, value);
  }
  return web;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lowered[name.toLowerCase()] = value;
  return lowered;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
