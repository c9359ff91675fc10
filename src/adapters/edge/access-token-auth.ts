import { RequestHandler } from 'express';
import { Actor } from '../../domain/actor';
import { InvalidAccessTokenError } from '../../domain/errors';
import { AccessTokenRefusedError } from '../auth/access-token-refused.error';
import { AccessTokenVerifier } from '../auth/access-token-verifier';
import { logOf, requestIdOf } from './request-logging';
import { ResponseLocals } from './response-locals';

/**
 * Puts the verified user, with the request's id and client address for the
 * audit trail, on res.locals.actor; 401 through the error map
 * otherwise. What exactly was wrong with a refused token (the issuer or
 * audience that would have passed) is logged here, never answered.
 */
export function accessTokenAuth(verifier: AccessTokenVerifier): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      throw new InvalidAccessTokenError(
        'An identity-provider token is required: Authorization: Bearer <token>',
        req.headers.authorization !== undefined,
      );
    }
    try {
      const actor = await verifier.verify(token);
      res.locals.actor = { ...actor, origin: { requestId: requestIdOf(req) ?? null, ip: req.ip ?? null } } satisfies Actor;
    } catch (error) {
      if (error instanceof AccessTokenRefusedError)
        logOf(req)[error.logLevel]({ reason: error.message, detail: error.detail }, 'access token refused');
      throw error;
    }
    next();
  };
}

/** The actor accessTokenAuth put on the request; only what runs after it asks. */
export function actorOf(locals: ResponseLocals): Actor {
  if (locals.actor === undefined) throw new Error('No actor on this request: the access token check must run first');
  return locals.actor;
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}
