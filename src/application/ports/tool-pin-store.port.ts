import { PinApproval, PinnedDefinition, ServedDefinition, ToolPin } from '../../domain/tool';

/**
 * The pinned tool definitions of upstream MCP servers, by server record id
 * and tool name; a server's pins go with its record. Writes are safe when
 * replicas list the same server at the same time.
 */
export interface ToolPinStore {
  /** The server's pins (at most as many as were ever allowed in). */
  list(serverId: string): Promise<ToolPin[]>;
  /** The definitions of approved pins (not changed ones, withheld while changed) whose text is kept, by tool name. */
  definitions(serverId: string): Promise<PinnedDefinition[]>;
  /**
   * Pins first-seen definitions as approved, with their text, while the
   * server holds fewer than `max` pins; a name pinned meanwhile keeps its
   * pin. Nothing when the server record is gone.
   */
  pinFirst(serverId: string, served: readonly ServedDefinition[], max: number): Promise<void>;
  /**
   * Records definitions other than the approved ones as seen. Returns the pins
   * that took a new seen definition here (the approved sha256 with the new
   * one), so each new definition is reported once across replicas.
   */
  markChanged(serverId: string, served: readonly ServedDefinition[]): Promise<ToolPin[]>;
  /** Changed pins whose approved definition is served again become approved. */
  restore(serverId: string, served: readonly ServedDefinition[]): Promise<void>;
  /** Keeps the text of served definitions that are the approved ones (checked in the same write), where none is kept yet. */
  describe(serverId: string, served: readonly ServedDefinition[]): Promise<void>;
  /** Drops the kept text of these tools (a listing no longer names them); a later listing that serves one keeps it again. */
  forgetTexts(serverId: string, tools: readonly string[]): Promise<void>;
  /**
   * Approves the last seen definition of these tools; one with a sha256 only
   * while that is the seen one, checked in the same write, so a definition
   * seen meanwhile is never approved in its place. The text kept of the one
   * approved before is dropped with it (the new one's is kept when next
   * served). Returns their pins as they now are.
   */
  approve(serverId: string, approvals: readonly PinApproval[]): Promise<ToolPin[]>;
}
