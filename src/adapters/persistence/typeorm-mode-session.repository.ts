import { EntityManager } from 'typeorm';
import { ModeSessionRepository, NewModeSession } from '../../application/ports/mode-session-repository.port';
import { ModeSession } from '../../domain/mode';
import { databaseCall } from './database-unavailable';

interface SessionRow {
  id: string;
  agent_role_id: string;
  mode_tool_config_id: string;
  mode: string;
  user_id: string;
  started_at: Date;
  ended_at: Date | null;
}

const SELECT = `
  SELECT s.id, s.agent_role_id, s.mode_tool_config_id, m.mode, s.user_id, s.started_at, s.ended_at
  FROM mode_sessions s JOIN mode_tool_configs m ON m.id = s.mode_tool_config_id`;

/** Sessions carry their mode's name, which lives with the mode; plain SQL keeps the join visible. */
export class TypeormModeSessionRepository implements ModeSessionRepository {
  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(private readonly manager: EntityManager) {}

  async insert(session: NewModeSession): Promise<ModeSession> {
    const [{ id }] = await databaseCall(
      this.manager.query<{ id: string }[]>(
        `INSERT INTO mode_sessions (agent_role_id, mode_tool_config_id, user_id, started_at)
       VALUES ($1, $2, $3, $4) RETURNING id`,
        [session.agentRoleId, session.modeToolConfigId, session.userId, session.startedAt],
      ),
    );
    return (await this.findById(id))!;
  }

  async findById(id: string): Promise<ModeSession | null> {
    const rows: SessionRow[] = await databaseCall(this.manager.query(`${SELECT} WHERE s.id = $1`, [id]));
    return rows.length > 0 ? toDomain(rows[0]) : null;
  }

  async end(id: string, at: Date): Promise<boolean> {
    const [, affected] = await databaseCall(
      this.manager.query<[unknown, number]>('UPDATE mode_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, at]),
    );
    return affected > 0;
  }
}

function toDomain(row: SessionRow): ModeSession {
  return {
    id: row.id,
    agentRoleId: row.agent_role_id,
    modeToolConfigId: row.mode_tool_config_id,
    mode: row.mode,
    userId: row.user_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}
