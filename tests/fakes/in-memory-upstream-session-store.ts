import {
  ClientSessionView,
  HeldUpstreamSession,
  TakenUpstreamSession,
  UpstreamSessionStore,
} from '../../src/application/ports/upstream-session-store.port';

interface ClientSession {
  userId: string;
  clientCapabilities: Record<string, unknown>;
  logLevel: string | null;
  held: Map<string, HeldUpstreamSession>;
}

/** UpstreamSessionStore in memory; `open` stands for a client session's initialize. */
export class InMemoryUpstreamSessionStore implements UpstreamSessionStore {
  readonly sessions = new Map<string, ClientSession>();

  open(clientSessionId: string, userId: string, clientCapabilities: Record<string, unknown> = {}): this {
    this.sessions.set(clientSessionId, { userId, clientCapabilities, logLevel: null, held: new Map() });
    return this;
  }

  async find(clientSessionId: string, serverId: string): Promise<ClientSessionView | null> {
    const session = this.sessions.get(clientSessionId);
    if (!session) return null;
    const held = session.held.get(serverId);
    return {
      clientCapabilities: session.clientCapabilities,
      logLevel: session.logLevel,
      userId: session.userId,
      held: held ? { ...held } : null,
    };
  }

  async save(clientSessionId: string, serverId: string, _userId: string, held: HeldUpstreamSession): Promise<boolean> {
    const session = this.sessions.get(clientSessionId);
    if (!session || session.held.has(serverId)) return false;
    session.held.set(serverId, { ...held });
    return true;
  }

  async forget(clientSessionId: string, serverId: string, upstreamSessionId: string): Promise<void> {
    const held = this.sessions.get(clientSessionId)?.held;
    if (held?.get(serverId)?.upstreamSessionId === upstreamSessionId) held.delete(serverId);
  }

  async setHeldLogLevel(clientSessionId: string, serverId: string, level: string): Promise<void> {
    const held = this.sessions.get(clientSessionId)?.held.get(serverId);
    if (held) held.logLevel = level;
  }

  async setClientLogLevel(clientSessionId: string, level: string): Promise<boolean> {
    const session = this.sessions.get(clientSessionId);
    if (session) session.logLevel = level;
    return session !== undefined;
  }

  async take(clientSessionId: string): Promise<TakenUpstreamSession[]> {
    const session = this.sessions.get(clientSessionId);
    if (!session) return [];
    const taken = [...session.held].map(([serverId, held]) => ({
      serverId,
      userId: session.userId,
      upstreamSessionId: held.upstreamSessionId,
      protocolVersion: held.protocolVersion,
    }));
    session.held.clear();
    return taken;
  }
}
