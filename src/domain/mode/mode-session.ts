/** A mode session: while it is active, its mode widens its role's scopes (spec 4.6). */
export interface ModeSession {
  id: string;
  agentRoleId: string;
  modeToolConfigId: string;
  mode: string;
  userId: string;
  startedAt: Date;
  endedAt: Date | null;
}

export function isActiveSession(session: ModeSession): boolean {
  return session.endedAt === null;
}
