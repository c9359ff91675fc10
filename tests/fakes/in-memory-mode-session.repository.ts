import { randomUUID } from 'node:crypto';
import { ModeSessionRepository, NewModeSession } from '../../src/application/ports/mode-session-repository.port';
import { ModeSession } from '../../src/domain/mode';

/** A stored session row; the mode name is not stored, it is joined from the mode config. */
export interface ModeSessionRow extends NewModeSession {
  id: string;
  endedAt: Date | null;
}

type Lookup<T> = (id: string) => T | undefined;

/**
 * The session port over a Map, for use-case unit tests only. Like the SQL
 * adapter it reads the mode name from the mode config (a join), checks the
 * foreign keys on insert, and lets the role and mode fakes cascade deletes.
 */
export class InMemoryModeSessionRepository implements ModeSessionRepository {
  readonly rows = new Map<string, ModeSessionRow>();
  private roleExists: Lookup<true> = () => true;
  private modeNameOf: Lookup<string> = () => undefined;

  /** Called by InMemoryAgentRoleRepository so inserts check agent_role_id. */
  linkRoles(roleExists: Lookup<true>): void {
    this.roleExists = roleExists;
  }

  /** Called by InMemoryModeToolConfigRepository so sessions read their mode's current name. */
  linkModes(modeNameOf: Lookup<string>): void {
    this.modeNameOf = modeNameOf;
  }

  /** ON DELETE CASCADE from agent_roles or mode_tool_configs. */
  deleteWhere(column: 'agentRoleId' | 'modeToolConfigId', id: string): void {
    for (const [key, row] of this.rows) if (row[column] === id) this.rows.delete(key);
  }

  async insert(session: NewModeSession): Promise<ModeSession> {
    if (!this.roleExists(session.agentRoleId)) throw new Error(`FK violation: agent role ${session.agentRoleId}`);
    if (this.modeNameOf(session.modeToolConfigId) === undefined) {
      throw new Error(`FK violation: mode tool config ${session.modeToolConfigId}`);
    }
    const row: ModeSessionRow = { ...session, startedAt: new Date(session.startedAt), id: randomUUID(), endedAt: null };
    this.rows.set(row.id, row);
    return (await this.findById(row.id))!;
  }

  async findById(id: string): Promise<ModeSession | null> {
    const row = this.rows.get(id);
    const mode = row && this.modeNameOf(row.modeToolConfigId);
    if (!row || mode === undefined) return null;
    return {
      id: row.id,
      agentRoleId: row.agentRoleId,
      modeToolConfigId: row.modeToolConfigId,
      mode,
      userId: row.userId,
      startedAt: new Date(row.startedAt),
      endedAt: row.endedAt && new Date(row.endedAt),
    };
  }

  async end(id: string, at: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.endedAt !== null) return false;
    row.endedAt = new Date(at);
    return true;
  }
}
