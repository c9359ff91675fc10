import { RequestHandler } from 'express';
import { TooManyRequestsError } from '../too-many-requests.error';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { clientBucket } from './client-address';
import { onKeyValidation } from './key-validation-events';
import type { KeyValidationListener } from './key-validation-listener';

/**
 * Mounted before key validation: a client address over its limit of failed
 * validations gets 429 with Retry-After without its key being looked at (so a
 * valid key from that address waits too: it cannot be told apart unchecked).
 * Only `invalid` outcomes count; a database error is not the client's failure.
 * The address is req.ip, which honours the `trust proxy` setting.
 */
export function authFailureLimit(limiter: AuthFailureLimiter, now: () => number = Date.now): RequestHandler {
  const countFailure: KeyValidationListener = (outcome, res) => {
    if (outcome === 'invalid') limiter.recordFailure(clientBucket(res.req.ip), now());
  };
  return (req, res, next) => {
    const retryAfter = limiter.retryAfterSeconds(clientBucket(req.ip), now());
    if (retryAfter !== null) throw new TooManyRequestsError(retryAfter);
    onKeyValidation(res, countFailure);
    next();
  };
}
