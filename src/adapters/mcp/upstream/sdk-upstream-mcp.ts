import { Agent } from 'undici';
import { UpstreamContent } from '../../../application/ports/upstream-content.port';
import { UpstreamContext, UpstreamMcp, UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { UpstreamSessionStore } from '../../../application/ports/upstream-session-store.port';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pinnedAgent } from './pinned-agent';
import { upstreamFetch } from './upstream-fetch';
import { SdkUpstreamSession, UpstreamLimits } from './sdk-upstream-session';
import { UpstreamAddressGuard } from './upstream-address-guard';

/**
 * UpstreamMcp (tools) and UpstreamContent (resources, prompts, completion)
 * with the SDK client over Streamable HTTP, sharing one connection pool whose
 * connections go only to addresses the guard checked: short stateless
 * contacts (like us), or, within a client session and with a session `store`,
 * contacts continuing keygate's own session with that upstream.
 */
export class SdkUpstreamMcp implements UpstreamMcp, UpstreamContent {
  private readonly agent: Agent;

  constructor(guard: UpstreamAddressGuard, private readonly limits: UpstreamLimits, private readonly store?: UpstreamSessionStore) {
    this.agent = pinnedAgent(guard, limits.timeoutMs);
  }

  open(server: UpstreamServer, context: UpstreamContext = {}): SdkUpstreamSession {
    const { clientSessionId } = context;
    const held = this.store && clientSessionId !== undefined && server.id !== undefined ? { store: this.store, clientSessionId, serverId: server.id } : undefined;
    // A relayed call may wait on a person (elicitation), so it has its own bound.
    const limits = context.relay && this.limits.relayedTimeoutMs ? { ...this.limits, timeoutMs: this.limits.relayedTimeoutMs } : this.limits;
    return new SdkUpstreamSession(server, this.agent, limits, context, held);
  }

  async terminate(server: UpstreamServer, session: { upstreamSessionId: string; protocolVersion: string }): Promise<void> {
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
      fetch: upstreamFetch(this.agent, this.limits.maxBytes, signal, () => undefined),
      sessionId: session.upstreamSessionId,
    });
    transport.setProtocolVersion(session.protocolVersion);
    await transport.terminateSession().catch(() => undefined);
  }
}
