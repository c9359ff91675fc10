import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey } from '../../../domain/api-key';
import { ForbiddenError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { parseUserId } from '../create-key/create-key.use-case';

export interface ListKeysInput {
  actor: Actor;
  userId?: string | null;
}

/**
 * A user's non-revoked keys, expired ones included, newest first; a rolled key
 * is listed until its overlap ends, then left out like a revoked one.
 */
export class ListKeys {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListKeysInput): Promise<ApiKey[]> {
    const userId = parseUserId(input.userId, input.actor);
    if (!mayActFor(input.actor, userId)) {
      throw new ForbiddenError("Only admins may list another user's keys");
    }
    const now = this.clock.now();
    return (await this.keys.listNonRevokedByUser(userId)).filter((key) => key.replacedBy === null || key.isUsableAt(now));
  }
}
