import { UpstreamContext, UpstreamMcp, UpstreamServer, UpstreamSession, UpstreamTool } from '../../src/application/ports/upstream-mcp.port';

/** What one fake upstream (by URL) does. */
export interface FakeUpstreamBehaviour {
  tools?: UpstreamTool[];
  /** Thrown by every operation instead of answering. */
  error?: Error;
  /** Thrown by tools/call alone (an upstream's error answer to it). */
  callError?: Error;
  /** Milliseconds before a listing answers, to overlap concurrent requests. */
  delayMs?: number;
}

/**
 * UpstreamMcp in memory. It counts what a real upstream would see: a contact
 * is a session that was used (connected), then its listings and calls.
 */
export class FakeUpstreamMcp implements UpstreamMcp {
  readonly behaviour = new Map<string, FakeUpstreamBehaviour>();
  readonly contacts: string[] = [];
  readonly listings: string[] = [];
  readonly calls: { url: string; tool: string; args: Record<string, unknown> | undefined }[] = [];
  /** The headers of each open, in order: what the upstream's requests would carry. */
  readonly headers: Record<string, string>[] = [];
  /** The context of each open, in order. */
  readonly contexts: (UpstreamContext | undefined)[] = [];
  /** Upstream sessions ended: the server's URL and keygate's session id there. */
  readonly terminated: { url: string; upstreamSessionId: string }[] = [];

  serve(url: string, behaviour: FakeUpstreamBehaviour): this {
    this.behaviour.set(url, behaviour);
    return this;
  }

  async terminate(server: UpstreamServer, session: { upstreamSessionId: string }): Promise<void> {
    this.terminated.push({ url: server.url, upstreamSessionId: session.upstreamSessionId });
  }

  open(server: UpstreamServer, context?: UpstreamContext): UpstreamSession {
    this.contexts.push(context);
    this.headers.push({ ...server.headers });
    let connected = false;
    const contact = (): FakeUpstreamBehaviour => {
      if (!connected) this.contacts.push(server.url);
      connected = true;
      const behaviour = this.behaviour.get(server.url) ?? {};
      if (behaviour.error) throw behaviour.error;
      return behaviour;
    };
    return {
      listTools: async () => {
        const behaviour = contact();
        this.listings.push(server.url);
        await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs ?? 0));
        return structuredClone(behaviour.tools ?? []);
      },
      callTool: async (tool, args) => {
        const behaviour = contact();
        this.calls.push({ url: server.url, tool, args });
        if (behaviour.callError) throw behaviour.callError;
        return { content: [{ type: 'text', text: `${tool} ran` }] };
      },
      close: async () => undefined,
    };
  }

  countOf(list: readonly string[], url: string): number {
    return list.filter((entry) => entry === url).length;
  }
}
