import { Actor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { ModeSessionRepository } from '../../ports/mode-session-repository.port';
import { requireUuid } from '../guards';
import { activeSessionOf } from './active-session';

export interface EndModeSessionInput {
  actor: Actor;
  id: string;
}

/** After this the role's own scopes apply again. */
export class EndModeSession {
  constructor(
    private readonly sessions: ModeSessionRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: EndModeSessionInput): Promise<void> {
    const id = requireUuid(input.id);
    await activeSessionOf(this.sessions, input.actor, id);
    if (!(await this.sessions.end(id, this.clock.now()))) throw new NotFoundError('mode session', id);
  }
}
