import { UpstreamContext, UpstreamMcp, UpstreamServer } from '../../../../src/application/ports/upstream-mcp.port';
import { TracedUpstreamMcp } from '../../../../src/adapters/observability/traced-upstream-mcp';
import { NO_TRACING, Tracing } from '../../../../src/adapters/observability/tracing';

const SERVER: UpstreamServer = {
  id: 'record-1',
  name: 'weather',
  url: 'https://weather.example:8443/mcp',
  headers: { Authorization: 'secret' },
};
const SPAN_CONTEXT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

/** A tracing whose spans are noted, and whose active context is SPAN_CONTEXT inside a span. */
function recordingTracing() {
  const spans: { name: string; kind: string; attributes: Record<string, unknown> }[] = [];
  let inSpan = false;
  const tracing: Tracing = {
    ...NO_TRACING,
    on: true,
    span: async (name, kind, attributes, step) => {
      spans.push({ name, kind, attributes });
      inSpan = true;
      try {
        return await step({ set: () => undefined, fail: () => undefined });
      } finally {
        inSpan = false;
      }
    },
    traceContext: () => (inSpan ? SPAN_CONTEXT : {}),
  };
  return { tracing, spans };
}

/** An upstream that notes the _meta trace context each call would send (what the sessions read from context.forwarded). */
function recordingUpstream() {
  const sent: Record<string, string>[] = [];
  const upstream: UpstreamMcp = {
    open: (_server, context?: UpstreamContext) => ({
      listTools: async () => [],
      close: async () => undefined,
      callTool: async () => (sent.push({ ...context?.forwarded?.trace }), { content: [] }),
    }),
  };
  return { upstream, sent };
}

describe('TracedUpstreamMcp', () => {
  it('runs each tools/call in one client span and sends that span as the _meta trace context', async () => {
    const { tracing, spans } = recordingTracing();
    const { upstream, sent } = recordingUpstream();
    const session = new TracedUpstreamMcp(upstream, tracing).open(SERVER);
    await session.callTool('forecast', { city: 'secret-city' });
    expect(spans).toEqual([
      {
        name: 'tools/call forecast',
        kind: 'client',
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'forecast',
          'gen_ai.operation.name': 'execute_tool',
          'server.address': 'weather.example',
          'server.port': 8443,
          'keygate.upstream.id': 'record-1',
        },
      },
    ]);
    expect(sent).toEqual([SPAN_CONTEXT]);
  });

  it("replaces a client's traceparent with keygate's span, keeping what else it forwarded", async () => {
    const { tracing } = recordingTracing();
    const { upstream, sent } = recordingUpstream();
    const forwarded = { trace: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01', baggage: 'a=b' } };
    await new TracedUpstreamMcp(upstream, tracing).open(SERVER, { forwarded }).callTool('forecast', undefined);
    expect(sent).toEqual([{ ...SPAN_CONTEXT, baggage: 'a=b' }]);
    expect(forwarded.trace.traceparent).toBe('00-11111111111111111111111111111111-2222222222222222-01');
  });
});
