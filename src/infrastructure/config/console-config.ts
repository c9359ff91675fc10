import path from 'node:path';
import { ConfigError, webProtocolAllowed } from './config';

export interface ConsoleConfig {
  /** OIDC_ISSUER: the identity provider the console signs in with. Null: the development provider, or none. */
  oidcIssuer: string | null;
  /** OIDC_CLIENT_ID: the console's public client (no secret: PKCE instead). */
  oidcClientId: string;
  /** The built console (`vite build web`), beside the compiled service in dist/. */
  dir: string;
}

const CLIENT_ID = /^[\x21-\x7e]{1,255}$/;

/** The console's settings, read once at start-up beside loadConfig (kept apart so the core config stays small). */
export function loadConsoleConfig(env: NodeJS.ProcessEnv, production: boolean): ConsoleConfig {
  const issuer = env.OIDC_ISSUER?.trim() || null;
  if (issuer !== null) {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new ConfigError('OIDC_ISSUER must be an absolute http(s) URL');
    }
    if (!webProtocolAllowed(url, production)) {
      throw new ConfigError(production ? 'OIDC_ISSUER must be https when NODE_ENV=production' : 'OIDC_ISSUER must be an http(s) URL');
    }
    if (url.search || url.hash) throw new ConfigError('OIDC_ISSUER must have no query or fragment');
  }
  const clientId = env.OIDC_CLIENT_ID?.trim() || 'keygate-console';
  if (!CLIENT_ID.test(clientId)) throw new ConfigError('OIDC_CLIENT_ID must be 1 to 255 printable ASCII characters');
  // dist/src/infrastructure/config → dist/web
  return { oidcIssuer: issuer?.replace(/\/+$/, '') ?? null, oidcClientId: clientId, dir: path.resolve(__dirname, '..', '..', '..', 'web') };
}
