/** keygate's session with one upstream, as the upstream negotiated it: enough for any replica to continue it without initialize. */
export interface HeldUpstreamSession {
  upstreamSessionId: string;
  protocolVersion: string;
  serverCapabilities: Record<string, unknown>;
  /** What keygate declared to the upstream as its client capabilities. */
  clientCapabilities: Record<string, unknown>;
  /** The logging level last sent to the upstream; null when none was. */
  logLevel: string | null;
}

/** What a contact with an upstream needs to know about the client session it serves. */
export interface ClientSessionView {
  /** The client's capabilities from its initialize. */
  clientCapabilities: Record<string, unknown>;
  /** The client's logging/setLevel; null when it sent none. */
  logLevel: string | null;
  userId: string;
  /** keygate's session with this upstream for this client session, when one is held. */
  held: HeldUpstreamSession | null;
}

/** A held session taken from the store on its client session's end, for its upstream to be told. */
export interface TakenUpstreamSession {
  serverId: string;
  userId: string;
  upstreamSessionId: string;
  protocolVersion: string;
}

/** keygate's sessions with upstream servers, per client session and server record, shared by every replica. */
export interface UpstreamSessionStore {
  /** The client session's view for one server; null when the client session is gone or ended. */
  find(clientSessionId: string, serverId: string): Promise<ClientSessionView | null>;
  /**
   * Keeps the held session of that client session with that server; false
   * when one is held already (another replica opened one at the same time) or
   * the client session has ended: the caller's session is then its own to end.
   */
  save(clientSessionId: string, serverId: string, userId: string, held: HeldUpstreamSession): Promise<boolean>;
  /** Drops it, when it is still the one named (a session the upstream forgot). */
  forget(clientSessionId: string, serverId: string, upstreamSessionId: string): Promise<void>;
  setHeldLogLevel(clientSessionId: string, serverId: string, level: string): Promise<void>;
  /** Stores the client's logging level; false when the client session is gone. */
  setClientLogLevel(clientSessionId: string, level: string): Promise<boolean>;
  /** Removes and returns the client session's held sessions: whoever takes them closes them, once across replicas. */
  take(clientSessionId: string): Promise<TakenUpstreamSession[]>;
}
