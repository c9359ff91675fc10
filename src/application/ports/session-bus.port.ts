/** A JSON-RPC message as it travels between replicas: a parsed JSON object. */
export type RpcMessage = Readonly<Record<string, unknown>>;

export type RpcRequestId = string | number;

/**
 * Messages of one MCP session that must reach whichever replica needs them:
 * the client's answers and notifications (POSTed to any replica) for the
 * replica that waits for them, and server-to-client messages for the replica
 * holding the session's GET stream.
 */
export interface SessionBus {
  /**
   * Hands a message the client POSTed (a JSON-RPC response or notification)
   * to every replica: the one that awaits that response, or listens for the
   * session's notifications, takes it; nobody else keeps it.
   */
  deliver(sessionId: string, message: RpcMessage): Promise<void>;
  /**
   * The client's response to a request sent to it with `requestId`, or null
   * after `timeoutMs` (bounded by the adapter), when the session ends, or
   * when `signal` aborts (the caller no longer wants it: its wait ends now).
   */
  awaitResponse(sessionId: string, requestId: RpcRequestId, timeoutMs: number, signal?: AbortSignal): Promise<RpcMessage | null>;
  /** Calls `handler` with each notification the client sends in this session, until the returned function is called. */
  onNotification(sessionId: string, handler: (message: RpcMessage) => void): () => void;
  /**
   * Appends a server-to-client message to the session's event log (resumable
   * with Last-Event-ID) and wakes the replica holding its GET stream.
   * False when the session has ended.
   */
  publishToStream(sessionId: string, message: RpcMessage): Promise<boolean>;
}
