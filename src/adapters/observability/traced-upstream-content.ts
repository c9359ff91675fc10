import { UpstreamContent, UpstreamContentSession } from '../../application/ports/upstream-content.port';
import { ForwardedRequest, UpstreamContext, UpstreamServer } from '../../application/ports/upstream-mcp.port';
import { upstreamAttributes } from './traced-upstream-mcp';
import { Tracing } from './tracing';

const LIST_METHODS = { resources: 'resources/list', resourceTemplates: 'resources/templates/list', prompts: 'prompts/list' } as const;

/**
 * Each upstream request for resources, prompts and completion in one client
 * span named by its method, carrying the span's trace context as
 * TracedUpstreamMcp does for tools/call. Bound only when tracing is on.
 */
export class TracedUpstreamContent implements UpstreamContent {
  constructor(
    private readonly inner: UpstreamContent,
    private readonly tracing: Tracing,
  ) {}

  open(server: UpstreamServer, context: UpstreamContext = {}): UpstreamContentSession {
    const trace: Record<string, string> = { ...context.forwarded?.trace };
    const forwarded: ForwardedRequest = { ...context.forwarded, trace };
    const session = this.inner.open(server, { ...context, forwarded });
    const traced = <T>(method: string, target: string | undefined, step: () => Promise<T>): Promise<T> =>
      this.tracing.span(target === undefined ? method : `${method} ${target}`, 'client', upstreamAttributes(server, method), () => {
        Object.assign(trace, this.tracing.traceContext());
        return step();
      });
    return {
      list: (kind) => traced(LIST_METHODS[kind], undefined, () => session.list(kind)),
      // A resource's URI may carry what its server takes for a secret: not in the span name.
      readResource: (uri) => traced('resources/read', undefined, () => session.readResource(uri)),
      getPrompt: (name, args) => traced('prompts/get', name, () => session.getPrompt(name, args)),
      complete: (params) => traced('completion/complete', undefined, () => session.complete(params)),
      follow: (uri, on) => session.follow(uri, on),
      capabilities: () => session.capabilities(),
      close: () => session.close(),
    };
  }
}
