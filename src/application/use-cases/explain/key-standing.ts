import { ApiKey } from '../../../domain/api-key';
import { KeyStanding, StepOutcome } from './explain-step';

/** The key step: whether the key can be used at `now`, and why not. */
export function keyStanding(key: ApiKey, now: Date): { outcome: StepOutcome; detail: string; key: KeyStanding } {
  const usable = key.isUsableAt(now);
  const rolled = key.replacedBy !== null;
  const state = rolled ? 'rolled' : key.stateAt(now);
  // A roll with a grace period leaves the old key expiring at its end; one without revokes it at once.
  const graceEndsAt = rolled && key.revokedAt === null ? key.expiresAt : null;
  const standing: KeyStanding = {
    state,
    usable,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    replacedBy: key.replacedBy,
    graceEndsAt,
  };
  return { outcome: usable ? 'pass' : 'fail', detail: describe(key, standing), key: standing };
}

function describe(key: ApiKey, { state, usable, graceEndsAt }: KeyStanding): string {
  if (state === 'rolled') {
    const by = `was rolled (replaced by ${key.replacedBy})`;
    if (usable) return `The key ${by} and stays usable until its grace period ends at ${graceEndsAt?.toISOString()}`;
    return graceEndsAt === null
      ? `The key ${by} with no grace period: it cannot be used`
      : `The key ${by} and its grace period ended at ${graceEndsAt.toISOString()}`;
  }
  if (state === 'revoked') return `The key was revoked at ${key.revokedAt?.toISOString()}`;
  if (state === 'expired') return `The key expired at ${key.expiresAt?.toISOString()}`;
  return key.expiresAt === null ? 'The key is active' : `The key is active until ${key.expiresAt.toISOString()}`;
}
