/** Span attribute values keygate records: never a secret, a header value, tool arguments or a result. */
export type TraceAttributes = Record<string, string | number | boolean>;

/** The span a traced step runs in: it may add attributes and say how the step failed. */
export interface TraceSpan {
  set(attributes: TraceAttributes): void;
  /** `error.type`, a short class of failure (an error code or class name), never its message. */
  fail(errorType: string): void;
}

/** A JSON-RPC request /mcp serves, as its MCP span is named and described. */
export interface McpRequestTrace {
  method: string;
  id?: string | number;
  /** tools/call's tool name, prompts/get's prompt name. */
  target?: string;
  protocolVersion?: string;
  /** Hashed before it is recorded. */
  sessionId?: string;
  /** The caller's user (a key's owner, an access token's subject). */
  userId?: string;
  /** The request's params._meta: a 2026 client's trace context, continued by the MCP span. */
  meta?: unknown;
  /** Read once the request was served: its `error.type` (the HTTP status of a refusal), if it failed. */
  failure?: () => string | undefined;
}

/**
 * OpenTelemetry traces, or nothing. With tracing off (OTEL_EXPORTER_OTLP_*
 * unset) the container holds NO_TRACING, whose every method runs its step and
 * returns: no context store, no OpenTelemetry module loaded, so the hot path
 * pays a call. otel-tracing.ts, loaded only when on, is the other one.
 */
export interface Tracing {
  readonly on: boolean;
  /** Runs `step` in an internal (or, for an upstream call, client) span, a child of the active one. */
  span<T>(name: string, kind: 'internal' | 'client', attributes: TraceAttributes, step: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** Runs `step` in the MCP server span of one JSON-RPC request. */
  mcpRequest<T>(request: McpRequestTrace, step: () => Promise<T>): Promise<T>;
  /** Adds attributes to the active span (a key cache lookup's hit or miss). */
  annotate(attributes: TraceAttributes): void;
  /** The active span's W3C trace context (traceparent, tracestate), for an upstream request's _meta; empty when off. */
  traceContext(): Record<string, string>;
  /** Exports what is left; before the process exits. */
  shutdown(): Promise<void>;
}

const NO_SPAN: TraceSpan = { set: () => undefined, fail: () => undefined };

export const NO_TRACING: Tracing = {
  on: false,
  span: (_name, _kind, _attributes, step) => step(NO_SPAN),
  mcpRequest: (_request, step) => step(),
  annotate: () => undefined,
  traceContext: () => ({}),
  shutdown: () => Promise.resolve(),
};
