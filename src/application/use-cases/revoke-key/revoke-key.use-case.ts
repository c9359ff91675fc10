import { Actor, mayActFor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { requireUuid } from '../guards';

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
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: RevokeKeyInput): Promise<void> {
    const id = requireUuid(input.id);
    const key = await this.keys.findById(id);
    if (!key || key.revokedAt !== null || !mayActFor(input.actor, key.userId)) {
      throw new NotFoundError('API key', id);
    }
    const changed = await this.keys.revoke(id, this.clock.now());
    if (!changed) throw new NotFoundError('API key', id);
  }
}
