import { RequestHandler } from 'express';
import { ValidateKey, KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { InvalidApiKeyError } from '../../domain/errors';
import { bearerToken } from './access-token-auth';
import { reportKeyValidation } from './key-validation-events';
import { ResponseLocals } from './response-locals';

/**
 * Reads the key from `Authorization: Bearer` or `X-API-Key` (both present and
 * different: rejected), validates it and puts the principal on res.locals.
 * The outcome goes to whoever listens (metrics, the failed-validation limit).
 */
export function apiKeyAuth(validateKey: ValidateKey): RequestHandler {
  return async (req, res, next) => {
    try {
      const rawKey = presentedKey(req.headers.authorization, req.headers['x-api-key']);
      if (rawKey === null) throw new InvalidApiKeyError(req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined);
      res.locals.principal = await validateKey.execute({ rawKey });
    } catch (error) {
      reportKeyValidation(res, error instanceof InvalidApiKeyError ? 'invalid' : 'error');
      throw error;
    }
    reportKeyValidation(res, 'valid');
    next();
  };
}

/** The principal apiKeyAuth (or mcp-oauth) put on the request; only what runs after it asks. */
export function principalOf(locals: ResponseLocals): KeyPrincipal {
  if (locals.principal === undefined) throw new Error('No principal on this request: the key check must run first');
  return locals.principal;
}

/** The key a request presents, or null when it presents none or two that differ. */
export function presentedKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined): string | null {
  const fromBearer = bearerToken(authorization);
  if (authorization !== undefined && fromBearer === null) return null;
  if (Array.isArray(apiKeyHeader)) return null;
  const fromHeader = apiKeyHeader?.trim();
  if (fromBearer !== null && fromHeader !== undefined && fromBearer !== fromHeader) return null;
  return fromBearer ?? fromHeader ?? null;
}
