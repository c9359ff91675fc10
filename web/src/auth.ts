/**
 * OpenID Connect authorization code flow with PKCE (RFC 7636), as a public client. The access token lives
 * in sessionStorage only (this tab, gone when it closes); logout removes it. Never localStorage.
 */
const SESSION = 'keygate.session';
const PENDING = 'keygate.pending-sign-in';

export interface Session {
  accessToken: string;
  expiresAt: number;
  sub: string;
}

interface ConsoleConfig {
  issuer: string | null;
  client_id: string;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  /** The page to go back to once signed in (a console hash route). */
  returnTo: string;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function claims(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

const redirectUri = () => `${location.origin}/console/`;

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return (await res.json()) as T;
}

async function provider(): Promise<{ config: ConsoleConfig & { issuer: string }; discovery: Discovery }> {
  const config = await getJson<ConsoleConfig>('/console/config.json');
  if (!config.issuer) throw new Error('No identity provider is configured: set OIDC_ISSUER and OIDC_CLIENT_ID.');
  const discovery = await getJson<Discovery>(`${config.issuer}/.well-known/openid-configuration`);
  // OIDC Discovery 4.3: the document must name the issuer it was fetched from.
  if (discovery.issuer !== config.issuer) throw new Error('The identity provider names another issuer');
  return { config: { ...config, issuer: config.issuer }, discovery };
}

export async function signIn(): Promise<void> {
  const { config, discovery } = await provider();
  const returnTo = /^#\/[\w/-]*$/.test(location.hash) ? location.hash : '#/keys';
  const pending: Pending = { verifier: randomText(48), state: randomText(), nonce: randomText(), returnTo };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.client_id,
    redirect_uri: redirectUri(),
    scope: 'openid',
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/** Finishes a sign-in when the provider sent the browser back with ?code=…&state=…; null when it did not. */
export async function completeSignIn(): Promise<Session | null> {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `/console/${pending?.returnTo ?? '#/keys'}`);
  // replaceState fires no event: the router learns of the page this way.
  dispatchEvent(new HashChangeEvent('hashchange'));
  if (params.has('error')) throw new Error(`Sign-in refused: ${params.get('error')}`);
  if (!pending || params.get('state') !== pending.state) throw new Error('Sign-in answer does not match the request (state)');
  const { config, discovery } = await provider();
  const res = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(),
      client_id: config.client_id,
      code_verifier: pending.verifier,
    }),
  });
  if (!res.ok) throw new Error(`The token endpoint answered ${res.status}`);
  const tokens = (await res.json()) as { access_token: string; id_token?: string; expires_in?: number };
  // The ID token came straight from the token endpoint over TLS (OIDC Core 3.1.3.7): its claims are checked, not its signature.
  if (tokens.id_token) {
    const id = claims(tokens.id_token);
    const aud = Array.isArray(id.aud) ? id.aud : [id.aud];
    if (id.iss !== config.issuer || !aud.includes(config.client_id) || id.nonce !== pending.nonce) {
      throw new Error('The ID token was not issued for this sign-in');
    }
  }
  const access = claims(tokens.access_token);
  const session: Session = {
    accessToken: tokens.access_token,
    expiresAt: Date.now() + (tokens.expires_in ?? 300) * 1000,
    sub: String(access.sub ?? ''),
  };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  return session;
}

export function currentSession(): Session | null {
  const session = JSON.parse(sessionStorage.getItem(SESSION) ?? 'null') as Session | null;
  if (session && session.expiresAt > Date.now()) return session;
  sessionStorage.removeItem(SESSION);
  return null;
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION);
  sessionStorage.removeItem(PENDING);
}
