import { RequestHandler } from 'express';
import { TooManyRequestsError } from '../../edge/too-many-requests.error';
import { presentedKey } from '../../edge/api-key-auth';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { clientBucket } from './client-address';
import { onKeyValidation } from '../../edge/key-validation-events';
import type { KeyValidationListener } from '../../edge/key-validation-listener';

/** Whether a raw key validates without a database lookup (a key cache hit); never throws. */
export type KnownKey = (rawKey: string) => boolean;

/**
 * Mounted before key validation. The limit slows guessing, not valid keys: a
 * client address over its limit of failed validations gets 429 with
 * Retry-After for any key that would need a database lookup, but a key that
 * validates from the key cache alone (`knownKey`) goes on as usual.
 *
 * Why that keeps the cost of guessing: an address over the limit gets no
 * further lookup, exactly as before, so a guesser still gets at most
 * AUTH_FAILURE_LIMIT lookups per window. The cache holds only keys that exist
 * and are not revoked, so the only key that gets past is a whole valid key,
 * which is what a right guess would have given anyway (2^256 of them to try);
 * every other key (unknown, revoked, expired, or valid but not cached on this
 * replica) gets the same 429, so the answer tells nothing about near misses.
 * The price: a valid key this replica has not cached (first use since start,
 * evicted) still waits out the window from a limited address.
 *
 * Only `invalid` outcomes count; a database error is not the client's failure.
 * The address is req.ip, which honours the `trust proxy` setting.
 */
export function authFailureLimit(
  limiter: AuthFailureLimiter,
  knownKey: KnownKey = () => false,
  now: () => number = Date.now,
): RequestHandler {
  const countFailure: KeyValidationListener = (outcome, res) => {
    if (outcome === 'invalid') limiter.recordFailure(clientBucket(res.req.ip), now());
  };
  return (req, res, next) => {
    const retryAfter = limiter.retryAfterSeconds(clientBucket(req.ip), now());
    if (retryAfter !== null && !presentsKnownKey(req.headers.authorization, req.headers['x-api-key'], knownKey)) {
      throw new TooManyRequestsError(retryAfter);
    }
    onKeyValidation(res, countFailure);
    next();
  };
}

function presentsKnownKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined, knownKey: KnownKey): boolean {
  const rawKey = presentedKey(authorization, apiKeyHeader);
  return rawKey !== null && knownKey(rawKey);
}
