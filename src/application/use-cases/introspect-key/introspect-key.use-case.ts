import { Actor } from '../../../domain/actor';
import { isWellFormedRawKey } from '../../../domain/api-key';
import { ForbiddenError, ValidationError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { KeyHasher } from '../../ports/key-hasher.port';
import { grantedScopes } from '../granted-scopes';

export interface IntrospectKeyInput {
  actor: Actor;
  token: string;
}

/** RFC 7662 section 2.2 in domain terms; the edge names the members. */
export type KeyIntrospection =
  { active: false } | { active: true; keyId: string; userId: string; scopes: string[]; createdAt: Date; expiresAt: Date | null };

const INACTIVE: KeyIntrospection = { active: false };

/**
 * Tells an admin (a resource server acting for the platform) whether a raw key
 * is active, and if so whose it is and what it grants. Unknown, malformed,
 * revoked and expired keys are all just inactive (RFC 7662 section 2.2), so the
 * answer says no more than "no". Introspection is not a use of the key: it
 * neither moves last_used_at nor counts against the key's limits, so an admin
 * looking into a suspected leak does not make a dormant key look busy.
 */
export class IntrospectKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: IntrospectKeyInput): Promise<KeyIntrospection> {
    if (!input.actor.isAdmin) throw new ForbiddenError('Only an admin may introspect keys');
    // Checked at run time: the value comes from a form, where it may be missing or repeated.
    if (input.token === undefined || input.token === null) throw ValidationError.single('token', 'is required');
    if (typeof input.token !== 'string') throw ValidationError.single('token', 'must be given exactly once');
    if (!isWellFormedRawKey(input.token)) return INACTIVE;
    const key = await this.keys.findByHash(this.hasher.hash(input.token));
    if (!key || !key.isUsableAt(this.clock.now())) return INACTIVE;
    return {
      active: true,
      keyId: key.id,
      userId: key.userId,
      scopes: grantedScopes(key.scopes),
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
    };
  }
}
