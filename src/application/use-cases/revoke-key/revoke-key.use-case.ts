import { Actor, mayActFor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { requireUuid } from '../guards';
import { keyEvent } from '../key-audit';

export interface RevokeKeyInput {
  actor: Actor;
  id: string;
}

/**
 * Soft-deletes a key. Unknown keys, other users' keys (for non-admins) and
 * already revoked keys all answer NotFound, so ids of others cannot be probed.
 */
export class RevokeKey {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: RevokeKeyInput): Promise<void> {
    const id = requireUuid(input.id);
    await this.work.run(async ({ keys, audit }) => {
      const key = await keys.findById(id);
      if (!key || key.revokedAt !== null || !mayActFor(input.actor, key.userId)) {
        throw new NotFoundError('API key', id);
      }
      const now = this.clock.now();
      if (!(await keys.revoke(id, now))) throw new NotFoundError('API key', id);
      await audit.append([keyEvent('key.revoked', input.actor, key, now)]);
    });
  }
}
