import { RequestHandler } from 'express';
import { DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';
import { consoleRouter } from '../../adapters/http/console/console.router';
import { DEV_OIDC_PATH, devOidcRouter, requestOrigin } from '../../adapters/http/dev-oidc/dev-oidc.router';
import { Config } from '../config/config';
import { ConsoleConfig } from '../config/console-config';
import { devUserId } from './dev-identity';

/**
 * The console and its sign-in: with the development issuer active (JWT_JWKS_URI unset) the console signs in
 * against the development OIDC provider mounted here (OIDC_ISSUER is not used: the API takes only
 * development tokens then); otherwise against OIDC_ISSUER, and no provider exists here.
 */
export function consoleRoutes(config: Config, consoleConfig: ConsoleConfig, dev: DevTokenIssuer | null): RequestHandler[] {
  const { oidcClientId: clientId } = consoleConfig;
  if (dev) {
    const userId = devUserId(config.dataDir);
    return [
      devOidcRouter({ issuer: dev, clientId, userId, adminRole: config.jwt.adminRole }),
      consoleRouter({ dir: consoleConfig.dir, clientId, issuerOrigin: null, issuer: (req) => `${requestOrigin(req)}${DEV_OIDC_PATH}` }),
    ];
  }
  const issuer = consoleConfig.oidcIssuer;
  return [consoleRouter({ dir: consoleConfig.dir, clientId, issuerOrigin: issuer ? new URL(issuer).origin : null, issuer: () => issuer })];
}
