import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  ClientCapabilities,
  Implementation,
  InboundLadderRejection,
  InboundLegacyRouteReason,
  InboundModernRoute,
  LOG_LEVEL_META_KEY,
  LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  BAGGAGE_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from '@modelcontextprotocol/server';
import { clipInput } from '../../../domain/errors';
import { RpcId } from '../json-rpc';
import { decodeMcpName, nameSourceOf } from '../../edge/mcp-name-header';

/**
 * The stateless revisions keygate serves. The SDK keeps its own list
 * internal, and a revision is only added here once keygate serves it.
 */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];

/** 2025 methods that 2026-07-28 removed; a modern request for one is a method the server does not implement. */
const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** MCP 2026-07-28's code for headers that disagree with the body (or are missing). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const METHOD_NOT_FOUND = -32601;

export interface EraHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

export interface EraInput {
  httpMethod: string;
  headers: EraHeaders;
  /** The parsed JSON body, undefined for GET and DELETE. */
  body: unknown;
}

/** The per-request fields of `_meta`; `meta` keeps the whole object, trace context included. */
export interface ModernEnvelope {
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  meta: Record<string, unknown>;
}

export interface EraRejection {
  httpStatus: number;
  id: RpcId;
  code: number;
  message: string;
  data?: unknown;
}

export type EraVerdict =
  | { era: 'legacy'; reason: InboundLegacyRouteReason }
  | { era: 'modern'; revision: string; kind: 'request' | 'notification'; method: string; id: RpcId; envelope: ModernEnvelope }
  | { era: 'rejected'; rejection: EraRejection };

/**
 * Which era serves one POST (or GET/DELETE) of /mcp: 2025 (sessions, today's
 * path, unchanged), 2026-07-28 (stateless), or neither, with the error to
 * answer. The body decides the era, as the SDK's classifier does; headers are
 * only checked against it, so a proxy dropping a header cannot switch eras.
 * The checks run in the SDK's order, so keygate answers what
 * createMcpHandler would for the same request.
 */
export function eraOf(input: EraInput): EraVerdict {
  const { headers } = input;
  if (plainLegacyRequest(input)) return PLAIN_LEGACY;
  const route =
    plainModernRoute(input) ??
    classifyInboundRequest({
      httpMethod: input.httpMethod,
      ...(headers.protocolVersion !== undefined && { protocolVersionHeader: headers.protocolVersion }),
      ...(headers.method !== undefined && { mcpMethodHeader: headers.method }),
      ...(headers.name !== undefined && { mcpNameHeader: headers.name }),
      body: input.body,
    });
  if (route.kind === 'legacy') return { era: 'legacy', reason: route.reason };
  const id = echoableId(input.body);
  if (route.kind === 'reject') return rejected(fromLadder(route, id));
  return modernVerdict(route, headers, id);
}

const PLAIN_LEGACY: EraVerdict = { era: 'legacy', reason: 'no-claim' };
const LEGACY_HEADER_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);
const REQUEST_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * What a 2025 client sends on every request after initialize: a well-formed
 * request with no 2026 claim in `_meta`, a 2025 MCP-Protocol-Version or none,
 * and no Mcp-Method or Mcp-Name. The classifier says "legacy, no-claim" for
 * exactly these (a spec holds the two equal on generated bodies) but costs
 * about 4 µs a call, on the path every 2025 request takes.
 */
export function plainLegacyRequest({ httpMethod, headers, body }: EraInput): boolean {
  if (httpMethod !== 'POST' || headers.method !== undefined || headers.name !== undefined) return false;
  if (headers.protocolVersion !== undefined && !LEGACY_HEADER_VERSIONS.has(headers.protocolVersion)) return false;
  if (!isPlainObject(body)) return false;
  for (const member in body) if (!REQUEST_MEMBERS.has(member)) return false;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || method === 'initialize') return false;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return false;
  if (params === undefined) return true;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  return meta === undefined || (isPlainObject(meta) && !Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY));
}

/** The `_meta` keys a plain 2026 request may carry besides its envelope; the classifier checks none of them. */
const TRACE_KEYS: ReadonlySet<string> = new Set([TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY]);
/** Client capabilities a plain 2026 request may declare, each as `{}` (no sub-options). */
const PLAIN_CAPABILITIES: ReadonlySet<string> = new Set(['elicitation', 'sampling', 'roots', 'experimental']);

/**
 * What 2026 clients send on every request: a well-formed request (no
 * initialize) whose `_meta` holds a revision keygate serves, equal to
 * MCP-Protocol-Version, capabilities declared without sub-options, at most a
 * clientInfo of name and version and trace context, and whose Mcp-Method is
 * its method. The classifier says "modern" with that revision for exactly
 * these (a spec holds the two equal on generated bodies), but costs about
 * 10 µs a call, most of it in schema checks that the body is not a response.
 * The header rung and the removed methods are still checked after it, as
 * after the classifier.
 */
export function plainModernRoute({ httpMethod, headers, body }: EraInput): InboundModernRoute | undefined {
  if (httpMethod !== 'POST' || headers.protocolVersion === undefined || !isPlainObject(body)) return undefined;
  for (const member in body) if (!REQUEST_MEMBERS.has(member)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || method === 'initialize' || headers.method !== method) return undefined;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return undefined;
  const meta = params._meta;
  const revision = meta[PROTOCOL_VERSION_META_KEY];
  if (typeof revision !== 'string' || revision !== headers.protocolVersion || !MODERN_REVISIONS.includes(revision)) return undefined;
  if (!plainCapabilities(meta[CLIENT_CAPABILITIES_META_KEY])) return undefined;
  for (const key in meta) {
    if (key === PROTOCOL_VERSION_META_KEY || key === CLIENT_CAPABILITIES_META_KEY) continue;
    if (key === CLIENT_INFO_META_KEY ? !plainClientInfo(meta[key]) : !(TRACE_KEYS.has(key) && typeof meta[key] === 'string'))
      return undefined;
  }
  return {
    kind: 'modern',
    messageKind: 'request',
    message: body as Extract<InboundModernRoute, { messageKind: 'request' }>['message'],
    classification: { era: 'modern', revision },
  };
}

function plainCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!PLAIN_CAPABILITIES.has(key) || !isEmptyObject(value[key])) return false;
  return true;
}

function plainClientInfo(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if ((key !== 'name' && key !== 'version') || typeof value[key] !== 'string') return false;
  return typeof value.name === 'string' && typeof value.version === 'string';
}

function isEmptyObject(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const _key in value) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function modernVerdict(route: InboundModernRoute, headers: EraHeaders, id: RpcId): EraVerdict {
  const revision = route.classification.revision;
  // A _meta naming a 2025 revision also lands here (as era "legacy"): neither era serves it.
  if (revision === undefined || !MODERN_REVISIONS.includes(revision)) {
    return rejected({
      httpStatus: 400,
      id,
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: 'Unsupported protocol version',
      data: { supported: [...MODERN_REVISIONS], requested: clipInput(revision ?? 'unknown') },
    });
  }
  const { method } = route.message;
  const params = route.message.params;
  // The spec requires the standard headers on requests only.
  if (route.messageKind === 'request') {
    const refusal = headerRefusal(method, params, headers, id);
    if (refusal) return rejected(refusal);
    if (REMOVED_METHODS.has(method)) return rejected({ httpStatus: 404, id, code: METHOD_NOT_FOUND, message: 'Method not found' });
  }
  return { era: 'modern', revision, kind: route.messageKind, method, id, envelope: envelopeOf(params) };
}

/**
 * The header rung the classifier leaves to its caller: MCP-Protocol-Version
 * and Mcp-Method present, Mcp-Name present and equal to the body's name or
 * URI after decoding. Mismatches of the first two are the classifier's.
 */
function headerRefusal(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: EraHeaders,
  id: RpcId,
): EraRejection | undefined {
  if (headers.protocolVersion === undefined) return mismatch(id, 'MCP-Protocol-Version', 'is required');
  if (headers.method === undefined) return mismatch(id, 'Mcp-Method', 'is required');
  const source = nameSourceOf(method);
  if (source === undefined) return undefined;
  const bodyValue = typeof params?.[source] === 'string' ? params[source] : undefined;
  if (headers.name === undefined) {
    // Without a name in the body the request is invalid params, which the later checks answer.
    return bodyValue === undefined ? undefined : mismatch(id, 'Mcp-Name', `is required for ${method}`);
  }
  const decoded = decodeMcpName(headers.name);
  if (decoded === undefined) return mismatch(id, 'Mcp-Name', 'is not valid =?base64?…?= encoding');
  if (bodyValue !== undefined && decoded !== bodyValue) return mismatch(id, 'Mcp-Name', `does not match params.${source}`);
  return undefined;
}

/**
 * Neither the header's value nor the body's is quoted: Mcp-Name may be a
 * resource URI, and a URI can carry a signed query.
 */
function mismatch(id: RpcId, header: string, problem: string): EraRejection {
  return { httpStatus: 400, id, code: HEADER_MISMATCH, message: `Header mismatch: ${header} ${problem}`, data: { header } };
}

/** Which header each of the classifier's -32020 cells is about; its own messages quote header values. */
const MISMATCH_HEADER: Readonly<Record<string, string>> = {
  'initialize-with-modern-header': 'MCP-Protocol-Version',
  'header-body-version-mismatch': 'MCP-Protocol-Version',
  'notification-header-body-version-mismatch': 'MCP-Protocol-Version',
  'method-header-mismatch': 'Mcp-Method',
  'notification-method-header-mismatch': 'Mcp-Method',
};

function fromLadder(rejection: InboundLadderRejection, id: RpcId): EraRejection {
  if (rejection.code !== HEADER_MISMATCH) {
    const { httpStatus, code, message, data } = rejection;
    return { httpStatus, id, code, message, ...(data !== undefined && { data }) };
  }
  const header = Object.hasOwn(MISMATCH_HEADER, rejection.cell) ? MISMATCH_HEADER[rejection.cell] : 'a standard MCP header';
  return { ...mismatch(id, header, 'does not match the body'), httpStatus: rejection.httpStatus };
}

function envelopeOf(params: Record<string, unknown> | undefined): ModernEnvelope {
  const meta = (params?._meta ?? {}) as Record<string, unknown>;
  const clientInfo = meta[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const logLevel = meta[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
  return {
    // The classifier has validated these; a notification may carry none.
    clientCapabilities: meta[CLIENT_CAPABILITIES_META_KEY] ?? {},
    ...(clientInfo !== undefined && { clientInfo }),
    ...(logLevel !== undefined && { logLevel }),
    meta,
  };
}

/** The request's id when it has one an answer can carry; null for notifications and unreadable bodies. */
function echoableId(body: unknown): RpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { id, method } = body as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function rejected(rejection: EraRejection): EraVerdict {
  return { era: 'rejected', rejection };
}
