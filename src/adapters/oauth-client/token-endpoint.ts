import {
  TokenEndpointAuth,
  UpstreamAuthorizationError,
  UpstreamAuthorizationFailure,
  UpstreamTokenSet,
} from '../../application/ports/upstream-authorization.port';
import { OAuthAnswer, OAuthHttp } from './oauth-http';

/** A client as the token and revocation endpoints see it. */
export interface TokenClient {
  clientId: string;
  clientSecret?: string;
  tokenEndpointAuth: TokenEndpointAuth;
}

/**
 * The form and headers that authenticate `client` (RFC 6749 §2.3.1: for
 * Basic, id and secret are form-urlencoded before base64).
 */
export function authenticate(client: TokenClient, form: URLSearchParams): Record<string, string> {
  if (client.tokenEndpointAuth === 'client_secret_basic' && client.clientSecret !== undefined) {
    const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    return { Authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
  }
  form.set('client_id', client.clientId);
  if (client.tokenEndpointAuth === 'client_secret_post' && client.clientSecret !== undefined)
    form.set('client_secret', client.clientSecret);
  return {};
}

/** POSTs one grant to a token endpoint and reads the RFC 6749 §5.1 answer; a refusal becomes grant_refused. */
export async function requestTokens(
  http: OAuthHttp,
  tokenEndpoint: string,
  client: TokenClient,
  form: URLSearchParams,
  asked: string[],
  now: Date,
): Promise<UpstreamTokenSet> {
  const headers = authenticate(client, form);
  const answer = await http.postForm(tokenEndpoint, 'the token endpoint', form, headers);
  const body = answer.body as Record<string, unknown> | undefined;
  if (answer.status !== 200 || typeof body?.access_token !== 'string' || body.access_token === '') {
    throw oauthFailure('grant_refused', 'the token endpoint refused the grant', answer);
  }
  const set: UpstreamTokenSet = {
    accessToken: body.access_token,
    tokenType: typeof body.token_type === 'string' ? body.token_type : 'Bearer',
    scopes: typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : asked,
  };
  if (typeof body.refresh_token === 'string' && body.refresh_token !== '') set.refreshToken = body.refresh_token;
  const account = accountOf(body);
  if (account !== undefined) set.account = account;
  const expiresIn = Number(body.expires_in);
  if (Number.isFinite(expiresIn) && expiresIn > 0) set.expiresAt = new Date(now.getTime() + expiresIn * 1000);
  return set;
}

/**
 * An error carrying the server's own `error` and `error_description`, kept to
 * RFC 6749's character set and cut short, so a server cannot make keygate
 * repeat a long or odd text.
 */
export function oauthFailure(
  code: UpstreamAuthorizationFailure,
  message: string,
  answer?: OAuthAnswer,
  fields?: { error?: unknown; description?: unknown },
): UpstreamAuthorizationError {
  const body = (answer?.body ?? {}) as Record<string, unknown>;
  const error = bounded(fields ? fields.error : body.error, 64);
  const description = bounded(fields ? fields.description : body.error_description, 200);
  const status = answer ? ` (HTTP ${answer.status})` : '';
  return new UpstreamAuthorizationError(code, `${message}${error ? `: ${error}` : status}`, error, description);
}

function bounded(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, max);
  return clean === '' ? undefined : clean;
}

const ACCOUNT_CLAIMS = ['preferred_username', 'email', 'name', 'sub'] as const;
const MAX_ACCOUNT = 120;

/**
 * A label for the account the tokens are for: the first of ACCOUNT_CLAIMS in
 * the answer's ID token, else in the access token when it is a JWT. Read,
 * not verified: it is only shown to the user it belongs to (and admins),
 * never trusted. Control characters make it no label at all.
 */
export function accountOf(body: Record<string, unknown>): string | undefined {
  for (const token of [body.id_token, body.access_token]) {
    const claims = typeof token === 'string' ? jwtClaims(token) : null;
    for (const claim of ACCOUNT_CLAIMS) {
      const value = claims?.[claim];
      if (typeof value === 'string' && value.trim() !== '' && !/[\u0000-\u001f\u007f-\u009f]/.test(value)) {
        return value.trim().slice(0, MAX_ACCOUNT);
      }
    }
  }
  return undefined;
}

function jwtClaims(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1].length > 16_384) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
