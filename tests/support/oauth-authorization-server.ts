import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** A client the server knows from the start (oidc-provider client metadata, snake_case). */
export interface StaticClient {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
}

export interface AuthorizationServerOptions {
  clients?: StaticClient[];
  /** Scopes every resource offers. */
  resourceScopes?: string;
  accessTokenTtl?: number;
  /** PEM of a CA: enables Client ID Metadata Documents, fetched over https from servers it signed. */
  cimdCa?: string;
}

/** Where a followed authorization URL came back to: the redirect URI with its query. */
export interface AuthorizationResponse {
  url: URL;
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
}

/**
 * A real OAuth 2.1 authorization server (oidc-provider 9) in a child process
 * (oauth-authorization-server.mjs says why): resource indicators with JWT
 * access tokens whose `aud` is the resource, open dynamic registration,
 * refresh-token rotation, revocation and an RFC 8693 token-exchange grant.
 * `authorize` follows an authorization URL to its redirect as a user who logs
 * in and consents at once, no browser needed.
 */
export class OAuthAuthorizationServer {
  issuer = '';
  jwks: { keys: Record<string, unknown>[] } = { keys: [] };
  private child?: ChildProcess;

  async start(options: AuthorizationServerOptions = {}): Promise<this> {
    const script = path.join(__dirname, 'oauth-authorization-server.mjs');
    const child = spawn(process.execPath, ['--no-warnings', script, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const first = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`authorization server exited (${code}): ${stderr}`)));
    });
    const ready = JSON.parse(first) as { issuer: string; jwks: OAuthAuthorizationServer['jwks'] };
    this.issuer = ready.issuer;
    this.jwks = ready.jwks;
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    await exited;
  }

  /**
   * Follows `authorizationUrl` through login and consent until the server
   * redirects to a URL starting with `redirectUri`, carrying cookies as a
   * browser would. `account` is the user who logs in; `deny` refuses consent.
   */
  async authorize(
    authorizationUrl: string,
    redirectUri: string,
    options: { account?: string; deny?: boolean } = {},
  ): Promise<AuthorizationResponse> {
    const cookies = new Map<string, string>();
    let current = authorizationUrl;
    for (let hop = 0; hop < 10; hop += 1) {
      if (current.startsWith(redirectUri)) {
        const url = new URL(current);
        const get = (name: string) => url.searchParams.get(name);
        return { url, code: get('code'), state: get('state'), iss: get('iss'), error: get('error') };
      }
      const headers: Record<string, string> = { 'X-Test-Account': options.account ?? 'alice' };
      if (options.deny) headers['X-Test-Deny'] = '1';
      if (cookies.size > 0) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(current, { redirect: 'manual', headers });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const location = res.headers.get('location');
      const body = await res.text();
      if (location === null) throw new Error(`authorization stopped at HTTP ${res.status}: ${body.slice(0, 300)}`);
      current = new URL(location, current).href;
    }
    throw new Error('authorization did not come back to the redirect URI');
  }
}
