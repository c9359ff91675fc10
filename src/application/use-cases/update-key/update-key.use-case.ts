import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey, parseKeyName } from '../../../domain/api-key';
import { AuditValue } from '../../../domain/audit';
import { NotFoundError, ValidationError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { ApiKeyChanges } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { parseExpiry } from '../create-key/create-key.use-case';
import { parseFields, requireUuid } from '../guards';
import { keyEvent, keyFacts } from '../key-audit';

export interface UpdateKeyInput {
  actor: Actor;
  id: string;
  name?: string;
  /** The new scopes in full; [] means full access, as at create. */
  scopes?: readonly string[];
  /** null removes the expiry. */
  expiresAt?: string | Date | null;
}

/**
 * Changes a key's name, scopes or expiry. Every replica drops the cached key
 * when the row changes, so narrowed scopes take effect at once everywhere.
 */
export class UpdateKey {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdateKeyInput): Promise<ApiKey> {
    const id = requireUuid(input.id);
    const now = this.clock.now();
    const changes = parseFields<ApiKeyChanges>({
      name: input.name === undefined ? undefined : () => parseKeyName(input.name),
      scopes: input.scopes === undefined ? undefined : () => parseScopes(input.scopes),
      expiresAt: input.expiresAt === undefined ? undefined : () => parseExpiry(input.expiresAt, now),
    });
    if (Object.keys(changes).length === 0) throw ValidationError.single('body', 'name, scopes or expires_at is required');
    return this.work.run(async ({ keys, audit }) => {
      const key = await keys.findById(id);
      if (!key || key.revokedAt !== null || !mayActFor(input.actor, key.userId)) throw new NotFoundError('API key', id);
      const updated = await keys.update(id, changes);
      if (!updated) throw new NotFoundError('API key', id);
      const facts = keyFacts(updated);
      const changed: { [field: string]: AuditValue } = {};
      for (const field of ['name', 'scopes', 'expires_at'] as const) {
        if (JSON.stringify(facts[field]) !== JSON.stringify(keyFacts(key)[field])) changed[field] = facts[field];
      }
      await audit.append([keyEvent('key.updated', input.actor, updated, now, { changed })]);
      return updated;
    });
  }
}

/** Unlike at create, null is refused: it would quietly widen the key to full access. */
function parseScopes(value: unknown): ScopeSet {
  if (value === null) throw ValidationError.single('scopes', 'must be an array of scope strings ([] means full access)');
  return ScopeSet.parse(value, 'scopes');
}
