import { ForwardedRequest } from '../../../application/ports/upstream-mcp.port';

/** The W3C Trace Context and Baggage keys 2026-07-28 defines in a request's _meta. */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;
/** Longest trace value passed on (W3C baggage is bounded at 8192 bytes; traceparent and tracestate are far shorter). */
const MAX_TRACE_CHARS = 8192;
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** RFC 5424 severities in MCP's order: a log message goes to the client only at or above its logLevel. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** The client's trace context as it sent it: string values only, none longer than a W3C header may be. */
export function traceOf(meta: unknown): Record<string, string> {
  const trace: Record<string, string> = {};
  if (!isObject(meta)) return trace;
  for (const key of TRACE_KEYS) {
    const value = meta[key];
    if (typeof value === 'string' && value.length <= MAX_TRACE_CHARS) trace[key] = value;
  }
  return trace;
}

/** A request's trace context for its upstream (2025 requests have no other forwarded part); undefined without one. */
export function tracedRequest(meta: unknown): ForwardedRequest | undefined {
  const trace = traceOf(meta);
  return Object.keys(trace).length > 0 ? { trace } : undefined;
}

/** The capabilities the client declared in its envelope (the SDK checked it is an object). */
export function clientCapabilitiesOf(envelope: unknown): Record<string, unknown> {
  const declared = isObject(envelope) ? envelope[CLIENT_CAPABILITIES] : undefined;
  return isObject(declared) ? declared : {};
}

/** The client's logLevel, when it sent one MCP knows. */
export function logLevelOf(envelope: unknown): string | undefined {
  const level = isObject(envelope) ? envelope[LOG_LEVEL] : undefined;
  return typeof level === 'string' && (LOG_LEVELS as readonly string[]).includes(level) ? level : undefined;
}

/** Whether a log message at `level` reaches a client that asked for `threshold` and above. */
export function loggedAt(level: unknown, threshold: string): boolean {
  const at = LOG_LEVELS.indexOf(level as (typeof LOG_LEVELS)[number]);
  return at >= 0 && at >= LOG_LEVELS.indexOf(threshold as (typeof LOG_LEVELS)[number]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
