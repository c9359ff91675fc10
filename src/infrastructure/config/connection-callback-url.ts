import { CONNECTION_CALLBACK_PAGE } from '../../adapters/http/console/console.router';
import { CLIENT_METADATA_PATH } from '../../adapters/http/controllers/client-metadata.router';
import { Config } from './config';

/**
 * The redirect URI of oauth connections, from configuration only: a request's
 * Host is the caller's to choose, and a redirect URI built on it would send
 * another user's authorization code wherever the caller liked. Under
 * keygate's public URL; in development without one, http://localhost:PORT
 * (what `npm start` serves); null when neither applies (oauth connections
 * are then refused, naming PUBLIC_URL).
 */
export function connectionCallbackUrl({ publicUrl, env, port }: Pick<Config, 'publicUrl' | 'env' | 'port'>): string | null {
  if (publicUrl !== null) return publicUrl + CONNECTION_CALLBACK_PAGE;
  if (env !== 'production' && port !== 0) return `http://localhost:${port}${CONNECTION_CALLBACK_PAGE}`;
  return null;
}

/** keygate's Client ID Metadata Document URL, its client id at servers that take one: only under an https public URL. */
export function clientMetadataDocumentUrl({ publicUrl }: Pick<Config, 'publicUrl'>): string | null {
  return publicUrl !== null && publicUrl.startsWith('https://') ? publicUrl + CLIENT_METADATA_PATH : null;
}
