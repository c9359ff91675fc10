import { ModeSession } from '../../domain/mode';

export interface NewModeSession {
  agentRoleId: string;
  modeToolConfigId: string;
  userId: string;
  startedAt: Date;
}

export interface ModeSessionRepository {
  insert(session: NewModeSession): Promise<ModeSession>;
  findById(id: string): Promise<ModeSession | null>;
  /** Sets ended_at if the session is still active; false when nothing changed. */
  end(id: string, at: Date): Promise<boolean>;
}
