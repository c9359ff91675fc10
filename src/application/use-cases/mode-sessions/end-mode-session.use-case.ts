import { Actor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { requireUuid } from '../guards';
import { sessionEvent } from '../scope-context-audit';
import { activeSessionOf } from './active-session';

export interface EndModeSessionInput {
  actor: Actor;
  id: string;
}

/** After this the role's own scopes apply again. */
export class EndModeSession {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: EndModeSessionInput): Promise<void> {
    const id = requireUuid(input.id);
    await this.work.run(async ({ sessions, audit }) => {
      const session = await activeSessionOf(sessions, input.actor, id);
      const now = this.clock.now();
      if (!(await sessions.end(id, now))) throw new NotFoundError('mode session', id);
      await audit.append([sessionEvent('mode_session.ended', input.actor, { ...session, endedAt: now }, now)]);
    });
  }
}
