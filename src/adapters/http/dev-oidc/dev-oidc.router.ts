import { randomBytes } from 'node:crypto';
import { Request, Response, Router } from 'express';
import helmet from 'helmet';
import { LRUCache } from 'lru-cache';
import { DEV_JWKS_PATH, DevTokenIssuer } from '../../auth/dev-token-issuer';
import { pkceMatches } from '../../auth/pkce';
import { formBody } from '../middleware/form-body';
import { AuthorizationRequest, parseAuthorizationRequest } from './authorization-request';
import { SIGN_IN_CSS, signInPage } from './sign-in-page';

export const DEV_OIDC_PATH = '/dev-oidc';
export const CONSOLE_PATH = '/console/';
const CODE_TTL_MS = 60_000;
/** The console's access token: short, since a development sign-in is one click away. */
const TOKEN_TTL_SECONDS = 3600;

export interface DevOidcOptions {
  issuer: DevTokenIssuer;
  clientId: string;
  /** The development user the start-up banner names. */
  userId: string;
  adminRole: string;
}

/** This request's origin: the development provider answers on whatever host the browser used (never in production). */
export function requestOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/**
 * A minimal OpenID Connect provider for the console's development sign-in (code flow with S256 PKCE,
 * one public client): mounted only while the development token issuer is, so the console runs the same
 * code against it as against OIDC_ISSUER in production.
 */
export function devOidcRouter(options: DevOidcOptions): Router {
  // One-time codes, bounded in count and life, so repeated clicks cannot grow memory.
  const codes = new LRUCache<string, AuthorizationRequest>({ max: 1000, ttl: CODE_TTL_MS });
  const router = Router();
  const expected = (req: Request) => ({ clientId: options.clientId, redirectUri: `${requestOrigin(req)}${CONSOLE_PATH}` });
  router.use(
    DEV_OIDC_PATH,
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          'default-src': ["'none'"],
          'style-src': ["'self'"],
          'form-action': ["'self'"],
          'frame-ancestors': ["'none'"],
          'base-uri': ["'none'"],
        },
      },
    }),
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  );

  router.get(`${DEV_OIDC_PATH}/.well-known/openid-configuration`, (req, res) => {
    const origin = requestOrigin(req);
    const issuer = `${origin}${DEV_OIDC_PATH}`;
    res.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${origin}${DEV_JWKS_PATH}`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['openid'],
    });
  });
  router.get(`${DEV_OIDC_PATH}/sign-in.css`, (_req, res) => void res.type('text/css').send(SIGN_IN_CSS));

  router.get(`${DEV_OIDC_PATH}/authorize`, (req, res) => {
    const request = parseAuthorizationRequest(req.query, expected(req));
    if (typeof request === 'string') return void res.status(400).type('text/plain').send(`Bad authorization request: ${request}`);
    res.type('html').send(signInPage(request, options.userId));
  });

  // The click: the development user is approved at once and the browser goes back with a one-time code.
  router.post(`${DEV_OIDC_PATH}/authorize`, formBody, (req, res) => {
    const request = parseAuthorizationRequest(req.body as Record<string, unknown>, expected(req));
    if (typeof request === 'string') return void res.status(400).type('text/plain').send(`Bad authorization request: ${request}`);
    const code = randomBytes(32).toString('base64url');
    codes.set(code, request);
    const target = new URL(request.redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', request.state);
    res.redirect(303, target.toString());
  });

  router.post(`${DEV_OIDC_PATH}/token`, formBody, (req, res) => {
    const body = req.body as Record<string, unknown>;
    if (body.grant_type !== 'authorization_code') return tokenError(res, 'unsupported_grant_type');
    const code = typeof body.code === 'string' ? body.code : '';
    const request = codes.get(code);
    // Single use whatever follows: a code tried with a wrong verifier is gone (RFC 6749 section 4.1.2).
    codes.delete(code);
    if (
      !request ||
      body.client_id !== request.clientId ||
      body.redirect_uri !== request.redirectUri ||
      typeof body.code_verifier !== 'string' ||
      !pkceMatches(body.code_verifier, request.codeChallenge)
    ) {
      return tokenError(res, 'invalid_grant');
    }
    const sub = options.userId;
    // Within JWT_MAX_LIFETIME_SECONDS, so the service takes the token it just handed out.
    const ttlSeconds = Math.min(TOKEN_TTL_SECONDS, options.issuer.maxLifetimeSeconds);
    res.json({
      access_token: options.issuer.mint({ sub, admin: true, adminRole: options.adminRole, ttlSeconds }),
      id_token: options.issuer.mintIdToken({
        sub,
        issuer: `${requestOrigin(req)}${DEV_OIDC_PATH}`,
        audience: request.clientId,
        nonce: request.nonce,
        ttlSeconds: TOKEN_TTL_SECONDS,
      }),
      token_type: 'Bearer',
      expires_in: ttlSeconds,
      scope: 'openid',
    });
  });
  return router;
}

function tokenError(res: Response, error: string): void {
  res.status(400).json({ error });
}
