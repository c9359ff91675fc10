import { Actor, mayActFor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { isActiveSession, ModeSession } from '../../../domain/mode';
import { ModeSessionRepository } from '../../ports/mode-session-repository.port';

/** Ended sessions and other users' sessions (for non-admins) look the same as unknown ones. */
export async function activeSessionOf(sessions: ModeSessionRepository, actor: Actor, id: string): Promise<ModeSession> {
  const session = await sessions.findById(id);
  if (!session || !isActiveSession(session) || !mayActFor(actor, session.userId)) {
    throw new NotFoundError('mode session', id);
  }
  return session;
}
