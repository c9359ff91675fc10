import { answerBoundOf, MAX_RESPONSE_BYTES, StoredSizes } from './answer-bounds';
import { changedTables, DbSnapshot } from './db-snapshot';
import { describeRequest, describeResponse, FuzzRequest } from './fuzz-request';
import { RawResponse, sendRaw } from './raw-http';

/** The contract of the hardening issue, for every request (a few routes have their own bound: answer-bounds.ts). */
export { MAX_RESPONSE_BYTES };
/** Limits the others are landing: problem bodies and their `errors` stay small. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;
export const MAX_ERROR_ENTRIES = 20;

export interface FuzzTarget {
  baseUrl: string;
  snapshot(): Promise<DbSnapshot>;
  /** For the routes whose answers are bounded by what is stored (answer-bounds.ts). */
  stored?: StoredSizes;
}

export interface Exchange {
  request: FuzzRequest;
  response: RawResponse;
  /** Tables whose rows changed while the request ran. */
  written: string[];
}

/** Sends one request between two database snapshots (the second only after a 4xx unless `always`). */
export async function exchange(target: FuzzTarget, request: FuzzRequest, always = false): Promise<Exchange> {
  const before = await target.snapshot();
  let response: RawResponse;
  try {
    response = await sendRaw(target.baseUrl, request);
  } catch (error) {
    throw new Error(`no answer (${(error as Error).message})\n  request: ${describeRequest(request)}`, { cause: error });
  }
  const written = always || (response.status >= 400 && response.status < 500) ? changedTables(before, await target.snapshot()) : [];
  return { request, response, written };
}

/** The JSON-RPC messages of an answer, whether it came as JSON or as SSE events. */
export function rpcMessages({ response }: Pick<Exchange, 'response'>): Record<string, unknown>[] {
  const body = response.body.toString('utf8');
  const texts = /^text\/event-stream/.test(String(response.headers['content-type'] ?? ''))
    ? [...body.matchAll(/^data: (.*)$/gm)].map((m) => m[1])
    : [body];
  return texts.flatMap((t) => {
    try {
      const value = JSON.parse(t);
      return Array.isArray(value) ? value : [value];
    } catch {
      return [];
    }
  });
}

/** JSON-RPC's "Internal error": what /mcp answers, over HTTP 200, when a handler threw something unexpected. */
const INTERNAL_ERROR = -32603;

/**
 * What the issue promises of every answer: no 5xx, at most 64 KiB (or the
 * route's own bound, answer-bounds.ts), nothing written by a 4xx. A JSON-RPC -32603 counts as a 5xx: the SDK turns an
 * exception it did not expect into that code and sends it with status 200.
 */
export function contractProblems({ response, written }: Pick<Exchange, 'response' | 'written'>, maxBytes = MAX_RESPONSE_BYTES): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}`);
  const internal = rpcMessages({ response }).filter((m) => (m?.error as { code?: unknown } | undefined)?.code === INTERNAL_ERROR).length;
  if (internal > 0) problems.push(`JSON-RPC ${INTERNAL_ERROR} internal error (a 5xx answered with ${response.status})`);
  if (response.bytes > maxBytes) problems.push(`response body of ${response.bytes} bytes (over ${maxBytes})`);
  if (written.length > 0 && response.status >= 400 && response.status < 500)
    problems.push(`rows written by a ${response.status}: ${written.join(', ')}`);
  return problems;
}

export function parsed(response: RawResponse): Record<string, unknown> | undefined {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A broken promise, with the exchange kept so a survey can sort failures by kind. */
export class ContractError extends Error {
  constructor(
    readonly exchange: Exchange,
    readonly problems: string[],
  ) {
    super(`${problems.join('; ')}\n  request: ${describeRequest(exchange.request)}\n  response: ${describeResponse(exchange.response)}`);
  }
}

export function fail(ex: Exchange, problems: string[]): never {
  throw new ContractError(ex, problems);
}

export type Rule = (ex: Exchange) => string[];

/** Sends a request and throws when an answer breaks the contract (plus `extra` rules). */
export async function check(target: FuzzTarget, request: FuzzRequest, ...extra: Rule[]): Promise<Exchange> {
  return checkWith(target, request, false, extra);
}

/** As check, for requests that must be refused whatever their status: any row written fails, 2xx included. */
export async function checkRefused(target: FuzzTarget, request: FuzzRequest, ...extra: Rule[]): Promise<Exchange> {
  return checkWith(target, request, true, [
    ({ response, written }) =>
      written.length > 0 && response.status < 400 ? [`rows written by a refused request: ${written.join(', ')}`] : [],
    ...extra,
  ]);
}

/** Called with every exchange a check makes (the survey counts outcomes with it). */
export const exchangeListeners = new Set<(ex: Exchange) => void>();

async function checkWith(target: FuzzTarget, request: FuzzRequest, always: boolean, extra: Rule[]): Promise<Exchange> {
  const ex = await exchange(target, request, always);
  for (const listener of exchangeListeners) listener(ex);
  const maxBytes = await answerBoundOf(request, target.stored);
  const problems = [(e: Exchange) => contractProblems(e, maxBytes), ...extra].flatMap((rule) => rule(ex));
  if (problems.length > 0) fail(ex, problems);
  return ex;
}

/** Still there: GET /healthz answers 200. */
export async function assertAlive(baseUrl: string): Promise<void> {
  const res = await sendRaw(baseUrl, { method: 'GET', path: '/healthz', headers: {} }, 5_000);
  if (res.status !== 200) throw new Error(`GET /healthz answered ${describeResponse(res)}`);
}
