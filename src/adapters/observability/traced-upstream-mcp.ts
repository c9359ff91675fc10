import { ForwardedRequest, UpstreamContext, UpstreamMcp, UpstreamServer, UpstreamSession } from '../../application/ports/upstream-mcp.port';
import { Tracing } from './tracing';

/**
 * Each upstream tools/call in one client span, `tools/call <tool>`: its HTTP
 * requests carry the span's traceparent (otel-tracing.ts adds it to undici's
 * requests) and its params._meta the same trace context, which 2026-07-28
 * defines there (a client's own trace context is replaced by keygate's span,
 * its child). Bound only when tracing is on.
 */
export class TracedUpstreamMcp implements UpstreamMcp {
  readonly terminate?: UpstreamMcp['terminate'];

  constructor(
    private readonly inner: UpstreamMcp,
    private readonly tracing: Tracing,
  ) {
    if (inner.terminate) this.terminate = (server, session) => inner.terminate!(server, session);
  }

  open(server: UpstreamServer, context: UpstreamContext = {}): UpstreamSession {
    // Filled in by each call, before the session reads it for the call's _meta.
    const trace: Record<string, string> = { ...context.forwarded?.trace };
    const forwarded: ForwardedRequest = { ...context.forwarded, trace };
    const session = this.inner.open(server, { ...context, forwarded });
    const tracing = this.tracing;
    return {
      listTools: () => session.listTools(),
      close: () => session.close(),
      callTool: (tool, args) =>
        tracing.span(`tools/call ${tool}`, 'client', callAttributes(server, tool), () => {
          Object.assign(trace, tracing.traceContext());
          return session.callTool(tool, args);
        }),
    };
  }
}

function callAttributes(server: UpstreamServer, tool: string): Record<string, string | number> {
  return { ...upstreamAttributes(server, 'tools/call'), 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' };
}

/** What every upstream client span says of its request: the method and where it went (never a header or the URL's query). */
export function upstreamAttributes(server: UpstreamServer, method: string): Record<string, string | number> {
  const url = new URL(server.url);
  return {
    'mcp.method.name': method,
    'server.address': url.hostname,
    ...(url.port !== '' && { 'server.port': Number(url.port) }),
    ...(server.id !== undefined && { 'keygate.upstream.id': server.id }),
  };
}
