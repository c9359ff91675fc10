import { ProtocolError } from '@modelcontextprotocol/client';
import { Agent, Dispatcher } from 'undici';
import { AbortSource } from '../../../application/ports/abort-source';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';

/** The upstream's answer: a plain complete result, its JSON-RPC error, or a reply only the SDK client reads (SSE, other statuses, other shapes). */
export type PostAnswer = { kind: 'result'; result: Record<string, unknown> } | { kind: 'reply'; response: Response } | { kind: 'resend' };

export type AnswerBody = Dispatcher.ResponseData['body'];
export type AnswerHeaders = Dispatcher.ResponseData['headers'];

const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
const INFO_KEYS: ReadonlySet<string> = new Set(['name', 'version', 'title']);

/**
 * What the direct POSTs (modern-upstream-post.ts, legacy-upstream-post.ts)
 * share: the request on the pinned agent with upstreamFetch's refusals, its
 * byte cap, and the checks that tell a plain tools/call answer from one only
 * the SDK client may read.
 */
export async function sendPost(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSource,
  refuse: (refusal: UpstreamRefusal) => void,
): Promise<Dispatcher.ResponseData> {
  signal.throwIfAborted();
  try {
    // undici's dispatcher takes any EventTarget-like signal, so a LazyAbort needs no AbortSignal made (lazy-abort.ts).
    return await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      body,
      signal,
      headers,
    });
  } catch (error) {
    const refusal = error instanceof UpstreamRefusal ? error : (error as { cause?: unknown }).cause;
    if (!(refusal instanceof UpstreamRefusal)) throw error;
    refuse(refusal);
    throw refusal;
  }
}

/** The refusal of a reply past maxBytes, handed to `refuse` as upstreamFetch does. */
export function overLimitOf(url: URL, maxBytes: number, refuse: (refusal: UpstreamRefusal) => void): () => UpstreamRefusal {
  return () => {
    const refusal = new UpstreamRefusal(
      `upstream reply over MCP_UPSTREAM_MAX_BYTES (${maxBytes} bytes)`,
      `${url.host} sent a reply of more than ${maxBytes} bytes`,
    );
    refuse(refusal);
    return refusal;
  };
}

/**
 * What both direct POSTs do first with the upstream's answer: a redirect is
 * sent again by the SDK's fetch (which follows it), a declared length past
 * maxBytes is refused; undefined when the answer is to be read on.
 */
export function redirectOrOversize(answer: Dispatcher.ResponseData, maxBytes: number, overLimit: () => Error): PostAnswer | undefined {
  const { statusCode, headers } = answer;
  if (statusCode >= 300 && statusCode < 400) {
    discard(answer.body);
    return { kind: 'resend' };
  }
  if (Number(headers['content-length'] ?? 0) > maxBytes) {
    discard(answer.body);
    throw overLimit();
  }
  return undefined;
}

/**
 * A 200 JSON answer, read whole: the plain result for request `id` (its
 * JSON-RPC error thrown, see plainAnswerOf), or else the bytes handed back
 * for the SDK client to read as its own request's answer.
 */
export async function readJsonAnswer(
  answer: Dispatcher.ResponseData,
  maxBytes: number,
  overLimit: () => Error,
  id: number,
  isPlain: (result: unknown) => boolean,
): Promise<PostAnswer> {
  const bytes = await readCapped(answer.body, maxBytes, overLimit);
  const result = plainAnswerOf(jsonOf(bytes), id, isPlain);
  if (result !== undefined) return { kind: 'result', result };
  return { kind: 'reply', response: new Response(bytes, { status: answer.statusCode, headers: webHeaders(answer.headers) }) };
}

/** The bytes as JSON; undefined when they are not. */
function jsonOf(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The media type of the answer, lower-cased, without its parameters. */
export function mediaTypeOf(headers: AnswerHeaders): string {
  return String(headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/**
 * The result of a JSON-RPC response to request `id` when `isPlain` takes it,
 * its error thrown as the SDK client throws it (a ProtocolError); undefined
 * for anything else (another id, a request, an odd shape).
 */
export function plainAnswerOf(message: unknown, id: number, isPlain: (result: unknown) => boolean): Record<string, unknown> | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.id !== id) return undefined;
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
  return error === undefined && isPlain(result) ? (result as Record<string, unknown>) : undefined;
}

/** A tools/call result of known fields only (`keys`) that the SDK's decoder passes on unchanged: text content, a serverInfo _meta. */
export function isPlainToolResult(result: unknown, keys: ReadonlySet<string>): result is Record<string, unknown> {
  if (!isObject(result)) return false;
  for (const key in result) if (!keys.has(key)) return false;
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

/**
 * A tool name the direct POST may put in Mcp-Name as it is: the characters
 * MCP names tools with (SEP-986). Any other goes through the SDK client,
 * which encodes a value that is not plain ASCII as the spec says (=?base64?…?=).
 */
export function isHeaderSafeName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z0-9_.\-/]{1,128}$/.test(name);
}

/**
 * The whole body, refused past maxBytes. Read from its data events, not with
 * `for await`: a stream's async iterator cost a 2026 call through
 * /mcp/servers/<name> about 20 µs more between the answer's last byte and its
 * bytes in hand, at 200 calls/s (bench (j) with BENCH_PHASES=on).
 */
export function readCapped(body: AnswerBody, maxBytes: number, overLimit: () => Error): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    body.on('data', (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > maxBytes) {
        discard(body);
        return reject(overLimit());
      }
      chunks.push(chunk);
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    body.once('error', reject);
  });
}

/**
 * The answer as the SDK's fetch would have given it: the same headers, the
 * bytes `read` already (`seen` of them counted), then the rest of `body`
 * through `iterator` when one was started on it, all cut off past maxBytes.
 */
export function webResponse(
  status: number,
  headers: AnswerHeaders,
  body: AnswerBody,
  maxBytes: number,
  overLimit: () => Error,
  read: { chunks: Uint8Array[]; seen: number; iterator?: AsyncIterator<Buffer, undefined> } = { chunks: [], seen: 0 },
): Response {
  const nullBody = [101, 103, 204, 205, 304].includes(status);
  if (nullBody) discard(body);
  let seen = read.seen;
  const already = read.chunks.slice();
  const iterator = read.iterator ?? (body as AsyncIterable<Buffer, undefined>)[Symbol.asyncIterator]();
  const stream = nullBody
    ? null
    : new ReadableStream<Uint8Array>({
        async pull(controller) {
          const first = already.shift();
          if (first !== undefined) return controller.enqueue(new Uint8Array(first));
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
  return new Response(stream, { status, headers: webHeaders(headers) });
}

/** Stops reading a body that is not wanted; undici reports that as an error no one needs. */
export function discard(body: AnswerBody): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function webHeaders(headers: AnswerHeaders): Headers {
  const web = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) web.append(name, v);
    else if (value !== undefined) web.set(name, value);
  }
  return web;
}

export function lowerCased(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lowered[name.toLowerCase()] = value;
  return lowered;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
