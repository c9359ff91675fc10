import { randomUUID } from 'node:crypto';
import { SessionBus } from '../../../application/ports/session-bus.port';
import { UpstreamSessionStore } from '../../../application/ports/upstream-session-store.port';
import { PendingRequests } from './pending-requests';
import { RelayedCall, RelayLimits, ToolCallRelay } from './tool-call-relay';

export interface SessionRelayOptions extends RelayLimits {
  /** MCP_UPSTREAM_TIMEOUT_MS: the whole upstream contact, relayed answers included, ends by then. */
  callTimeoutMs: number;
}

/** What the SDK server of a session request needs for its upstream calls: a relay per tools/call, and the client's logging level kept. */
export class SessionRelays {
  private readonly pending = new PendingRequests();

  constructor(
    private readonly bus: SessionBus,
    private readonly store: UpstreamSessionStore,
    private readonly options: SessionRelayOptions,
  ) {}

  open(call: Omit<RelayedCall, 'deadline'>): ToolCallRelay {
    const deps = {
      bus: this.bus,
      pending: this.pending,
      limits: this.options,
      newRequestId: () => `keygate-${randomUUID()}`,
      now: Date.now,
    };
    return new ToolCallRelay(deps, { ...call, deadline: Date.now() + this.options.callTimeoutMs });
  }

  /** logging/setLevel: kept with the client session and sent to each upstream session at its next use. */
  setLogLevel(sessionId: string, level: string): Promise<boolean> {
    return this.store.setClientLogLevel(sessionId, level);
  }
}
