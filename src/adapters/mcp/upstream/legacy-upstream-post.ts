import { Agent } from 'undici';
import { AbortSource } from '../../../application/ports/abort-source';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import {
  AnswerBody,
  discard,
  isPlainToolResult,
  lowerCased,
  mediaTypeOf,
  overLimitOf,
  plainAnswerOf,
  PostAnswer,
  readJsonAnswer,
  redirectOrOversize,
  sendPost,
  webResponse,
} from './direct-upstream-post';
import { SseAnswerReader } from './sse-answer-reader';

const RESULT_KEYS: ReadonlySet<string> = new Set(['content', 'isError', 'structuredContent', '_meta']);
const ACCEPTED = ['application/json', 'text/event-stream'];

/** A plain tools/call within keygate's held 2025 session with an upstream: no logLevel to send, no progress, no trace. */
export interface LegacyCall {
  url: string;
  headers: Record<string, string>;
  sessionId: string;
  /** The held session's version; empty when the upstream named none (then no header, as the SDK client sends). */
  protocolVersion: string;
  name: string;
  arguments: Record<string, unknown> | undefined;
  /** The wire id the SDK client's first request gets in this contact (unique-request-ids.ts). */
  id: number;
}

/**
 * The POST the SDK client sends for a plain tools/call in a held 2025
 * session (same body bytes and wire id, the session's headers and the
 * record's), sent with undici's dispatcher on the same pinned agent instead
 * of a Client, its transport and fetch per contact. A 200 JSON answer, or an
 * SSE answer of priming events then the response, whose result is text
 * content (or a JSON-RPC error) is read here; the SSE stream is read as it
 * comes, since an upstream may ask the client something mid-call and wait.
 * Any other answer is handed back (bytes already read, then the rest) for
 * the SDK client to read as its own request's answer; a redirect is sent
 * again by the SDK's fetch, which follows it. Byte cap and refusals are upstreamFetch's.
 */
export async function postLegacyCall(
  agent: Agent,
  call: LegacyCall,
  maxBytes: number,
  signal: AbortSource,
  refuse: (refusal: UpstreamRefusal) => void,
): Promise<PostAnswer> {
  const url = new URL(call.url);
  const body = JSON.stringify({
    method: 'tools/call',
    params: { name: call.name, arguments: call.arguments },
    jsonrpc: '2.0',
    id: call.id,
  });
  const answer = await sendPost(agent, url, sessionHeaders(call), body, signal, refuse);
  const overLimit = overLimitOf(url, maxBytes, refuse);
  const opening = redirectOrOversize(answer, maxBytes, overLimit);
  if (opening !== undefined) return opening;
  const { statusCode, headers } = answer;
  const type = statusCode === 200 && headers['content-encoding'] === undefined ? mediaTypeOf(headers) : '';
  if (type === 'application/json') return readJsonAnswer(answer, maxBytes, overLimit, call.id, isPlainResult);
  if (type !== 'text/event-stream') return { kind: 'reply', response: webResponse(statusCode, headers, answer.body, maxBytes, overLimit) };
  const reader = new SseAnswerReader(call.id);
  const iterator = (answer.body as AsyncIterable<Buffer, undefined>)[Symbol.asyncIterator]();
  const read = { chunks: [] as Uint8Array[], seen: 0, iterator };
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) break;
    read.seen += value.byteLength;
    if (read.seen > maxBytes) {
      discard(answer.body);
      throw overLimit();
    }
    read.chunks.push(value);
    const verdict = reader.feed(value);
    if (verdict === undefined) continue;
    if (verdict.kind === 'handover') break;
    let result: Record<string, unknown> | undefined;
    try {
      result = plainAnswerOf(verdict.message, call.id, isPlainResult);
    } catch (error) {
      drain(answer.body, iterator, read.seen, maxBytes);
      throw error;
    }
    if (result === undefined) break;
    drain(answer.body, iterator, read.seen, maxBytes);
    return { kind: 'result', result };
  }
  return { kind: 'reply', response: webResponse(statusCode, headers, answer.body, maxBytes, overLimit, read) };
}

/**
 * The notifications/cancelled the SDK client sends in the held session when
 * its request is cancelled before the answer came (the client cancelled the
 * call): the tool is told to stop. Best effort, as the SDK's: a failure is dropped.
 */
export async function cancelLegacyCall(
  agent: Agent,
  call: LegacyCall,
  reason: unknown,
  signal: AbortSource,
  refuse: (refusal: UpstreamRefusal) => void,
): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: call.id, reason: String(reason) },
  });
  try {
    discard((await sendPost(agent, new URL(call.url), sessionHeaders(call), body, signal, refuse)).body);
  } catch {
    // As the SDK client's cancellation: nothing waits on it.
  }
}

/** The headers the SDK transport sends on every POST in the held session: the record's, then its own. */
function sessionHeaders(call: LegacyCall): Record<string, string> {
  const record = lowerCased(call.headers);
  // As the SDK transport merges Accept: the record's types first, then its own, each once.
  const accept = [...new Set([...(record.accept?.split(',').map((type) => type.trim().toLowerCase()) ?? []), ...ACCEPTED])].join(', ');
  return {
    'user-agent': 'undici',
    ...record,
    'mcp-session-id': call.sessionId,
    ...(call.protocolVersion !== '' && { 'mcp-protocol-version': call.protocolVersion }),
    'content-type': 'application/json',
    accept,
  };
}

function isPlainResult(result: unknown): boolean {
  return isPlainToolResult(result, RESULT_KEYS);
}

/**
 * The rest of a stream already answered (its end, as a rule), read so the
 * connection goes back to the pool; past maxBytes it is dropped, and closing
 * the contact aborts a stream the upstream keeps open.
 */
function drain(body: AnswerBody, iterator: AsyncIterator<Buffer, undefined>, seen: number, maxBytes: number): void {
  void (async () => {
    for (let more = await iterator.next(); !more.done; more = await iterator.next()) {
      seen += more.value.byteLength;
      if (seen > maxBytes) return discard(body);
    }
  })().catch(() => discard(body));
}
