import { createHash } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import { Attributes, context, createContextKey, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { scrubPath } from '../edge/secret-scrubbing';
import { McpRequestTrace, TraceAttributes, TraceSpan, Tracing } from './tracing';

/** Set on the context of an upstream call's client span: its HTTP requests carry its traceparent. */
const UPSTREAM_CALL = createContextKey('keygate.upstream-call');
const TRACE_KEYS = ['traceparent', 'tracestate'];

/**
 * Starts the OpenTelemetry SDK (OTLP/HTTP, configured by the standard OTEL_*
 * variables) with the HTTP, Express and pg instrumentations. Loaded only when
 * tracing is on, and before express, pg and http are required (main.ts), so
 * that the instrumentations can patch them.
 */
export function startOtelTracing(): Tracing {
  const sdk = new NodeSDK({
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': 'keygate' })),
    // Traces only: keygate's metrics are Prometheus's, its logs JSON lines.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Upstream calls go through undici and get keygate's own client span; nothing else keygate sends is worth one.
        disableOutgoingRequestInstrumentation: true,
        // A path may hold a key or a JWT pasted into it, a query an access token, the user agent anything: masked or left out.
        startIncomingSpanHook: (request) => ({
          'url.path': scrubPath((request.url ?? '/').split('?')[0]),
          'url.query': undefined,
          'user_agent.original': undefined,
        }),
      }),
      // The route on the server span and the handlers' spans; a span per middleware (helmet, the key, the body) cost more than it told.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Parameter values stay out (queries are parameterised); background queries outside a request make no trace.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
  });
  sdk.start();
  diagnosticsChannel.subscribe('undici:request:create', injectIntoUpstreamRequest);
  return new OtelTracing(sdk);
}

function injectIntoUpstreamRequest(message: unknown): void {
  const active = context.active();
  if (active.getValue(UPSTREAM_CALL) !== true) return;
  const request = (message as { request: { addHeader(name: string, value: string): unknown } }).request;
  propagation.inject(active, request, { set: (carrier, name, value) => void carrier.addHeader(name, value) });
}

class OtelTracing implements Tracing {
  readonly on = true;
  private readonly tracer = trace.getTracer('keygate');

  constructor(private readonly sdk: NodeSDK) {}

  span<T>(name: string, kind: 'internal' | 'client', attributes: TraceAttributes, step: (span: TraceSpan) => Promise<T>): Promise<T> {
    const client = kind === 'client';
    const parent = client ? context.active().setValue(UPSTREAM_CALL, true) : context.active();
    return this.tracer.startActiveSpan(name, { kind: client ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, parent, (span) =>
      ended(span, () => step(handleOf(span))),
    );
  }

  mcpRequest<T>(request: McpRequestTrace, step: () => Promise<T>): Promise<T> {
    const carrier = traceCarrierOf(request.meta);
    // A 2026 client's _meta trace context parents the MCP span; without one, the HTTP server span does.
    const parent = carrier === undefined ? context.active() : propagation.extract(context.active(), carrier);
    const name = request.target === undefined ? request.method : `${request.method} ${request.target}`;
    return this.tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes: mcpAttributes(request) }, parent, (span) =>
      ended(span, async () => {
        const served = await step();
        const failure = request.failure?.();
        if (failure !== undefined) handleOf(span).fail(failure);
        return served;
      }),
    );
  }

  annotate(attributes: TraceAttributes): void {
    trace.getActiveSpan()?.setAttributes(attributes);
  }

  traceContext(): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    return carrier;
  }

  shutdown(): Promise<void> {
    return this.sdk.shutdown();
  }
}

async function ended<T>(span: Span, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    // The class of failure, never its message (which may quote what the caller sent).
    span.setAttribute('error.type', errorTypeOf(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

function handleOf(span: Span): TraceSpan {
  return {
    set: (attributes) => void span.setAttributes(attributes),
    fail: (errorType) => {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
  };
}

function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'number' || (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code))) return String(code);
  return (error as Error)?.constructor?.name ?? '_OTHER';
}

/** The MCP semantic conventions' attributes of one request; the session id hashed, as it is a bearer of the session. */
function mcpAttributes(request: McpRequestTrace): Attributes {
  const tool = request.method === 'tools/call' ? request.target : undefined;
  return {
    'mcp.method.name': request.method,
    ...(request.id !== undefined && { 'jsonrpc.request.id': String(request.id) }),
    ...(request.protocolVersion !== undefined && { 'mcp.protocol.version': request.protocolVersion }),
    ...(request.sessionId !== undefined && { 'mcp.session.id': hashed(request.sessionId) }),
    ...(request.userId !== undefined && { 'keygate.user.id': request.userId }),
    ...(tool !== undefined && { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }),
    ...(request.method === 'prompts/get' && request.target !== undefined && { 'gen_ai.prompt.name': request.target }),
  };
}

function hashed(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

function traceCarrierOf(meta: unknown): Record<string, string> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent } = meta as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  const carrier: Record<string, string> = {};
  for (const key of TRACE_KEYS) {
    const value = (meta as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length <= 512) carrier[key] = value;
  }
  return carrier;
}
