import { Container } from 'inversify';
import { RequestHandler, Router } from 'express';
import { JwksAccessTokenVerifier } from '../../adapters/auth/jwks-access-token-verifier';
import { McpAccessTokenVerifier } from '../../adapters/auth/mcp-access-token-verifier';
import { McpOAuth } from '../../adapters/mcp/oauth/mcp-oauth';
import { protectedResourceRoutes } from '../../adapters/mcp/oauth/protected-resource';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * /mcp as an OAuth protected resource, only with MCP_RESOURCE_URL and
 * MCP_AUTHORIZATION_SERVERS: McpOAuth is bound then alone (the controller
 * takes it when present), and the metadata route is an empty router otherwise.
 */
export function bindMcpOAuth(c: Container): void {
  const { oauth } = c.get<Config>(TOKENS.Config).mcp;
  if (oauth === null) {
    c.bind<RequestHandler>(TOKENS.ProtectedResourceRoutes).toConstantValue(Router());
    return;
  }
  c.bind(McpOAuth).toResolvedValue(
    (validate: ValidateKey, jwks: JwksAccessTokenVerifier) => new McpOAuth(validate, new McpAccessTokenVerifier(jwks, oauth), oauth.resourceUrl),
    [ValidateKey, JwksAccessTokenVerifier],
  );
  c.bind<RequestHandler>(TOKENS.ProtectedResourceRoutes).toConstantValue(protectedResourceRoutes(oauth));
}
