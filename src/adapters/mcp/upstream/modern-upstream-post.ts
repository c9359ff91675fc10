import { Agent } from 'undici';
import { AbortSource } from '../../../application/ports/abort-source';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { SERVER_INFO } from '../mcp-server.factory';
import {
  isPlainToolResult,
  lowerCased,
  mediaTypeOf,
  overLimitOf,
  PostAnswer,
  readJsonAnswer,
  redirectOrOversize,
  sendPost,
  webResponse,
} from './direct-upstream-post';

const MODERN = '2026-07-28';
/** The id the SDK client gives the first request of a fresh Client: an answer handed to it must carry the same. */
const FIRST_ID = 0;
const RESULT_KEYS: ReadonlySet<string> = new Set(['content', 'isError', 'structuredContent', 'resultType', '_meta']);

/** A plain stateless tools/call of a 2026-07-28 upstream: no retry fields, no trace, no logLevel, no relay. */
export interface PlainCall {
  url: string;
  headers: Record<string, string>;
  name: string;
  arguments: Record<string, unknown> | undefined;
  clientCapabilities: Record<string, unknown>;
}

export type { PostAnswer } from './direct-upstream-post';

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
  signal: AbortSource,
  refuse: (refusal: UpstreamRefusal) => void,
): Promise<PostAnswer> {
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
  const answer = await sendPost(
    agent,
    url,
    {
      ...lowerCased(call.headers),
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': call.name,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': 'undici',
    },
    body,
    signal,
    refuse,
  );
  const overLimit = overLimitOf(url, maxBytes, refuse);
  const opening = redirectOrOversize(answer, maxBytes, overLimit);
  if (opening !== undefined) return opening;
  const { statusCode, headers } = answer;
  const jsonAnswer = statusCode === 200 && headers['content-encoding'] === undefined && mediaTypeOf(headers) === 'application/json';
  if (!jsonAnswer) return { kind: 'reply', response: webResponse(statusCode, headers, answer.body, maxBytes, overLimit) };
  const read = await readJsonAnswer(answer, maxBytes, overLimit, FIRST_ID, isPlainResult);
  if (read.kind !== 'result') return read;
  // A complete result of text content, or an error, for id 0: passed on without its resultType.
  const { resultType: _type, ...rest } = read.result;
  return { kind: 'result', result: rest };
}

/** The shape the SDK's decoder passes on unchanged but for resultType: a complete result, text content only, known fields. */
function isPlainResult(result: unknown): boolean {
  return isPlainToolResult(result, RESULT_KEYS) && result.resultType === 'complete';
}
