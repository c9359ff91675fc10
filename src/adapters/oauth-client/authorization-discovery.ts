import {
  AuthorizationServerMetadata,
  DiscoveredAuthorization,
  ProtectedResourceMetadata,
  UpstreamAuthorizationError,
} from '../../application/ports/upstream-authorization.port';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata-documents';
import { OAuthHttp } from './oauth-http';
import { canonicalResource, resourceCovers } from './resource-uri';
import { authorizationServerMetadataUrls, protectedResourceMetadataUrls } from './well-known-urls';
import { bearerChallengeParams } from './www-authenticate';

/**
 * From an upstream MCP URL to the authorization server that guards it, in the
 * MCP authorization spec's order (2025-11-25, unchanged in 2026-07-28): the
 * 401's `resource_metadata`, else the RFC 9728 well-known URLs; then the
 * first authorization server it lists, by RFC 8414 or OpenID Connect
 * discovery. A URL that answers anything but 200 passes to the next one.
 */
export class AuthorizationDiscovery {
  constructor(private readonly http: OAuthHttp) {}

  async discover(mcpUrl: string, wwwAuthenticate?: string): Promise<DiscoveredAuthorization> {
    const endpoint = canonicalResource(mcpUrl);
    if (endpoint === null) throw new UpstreamAuthorizationError('discovery_failed', 'the MCP server URL is not an http(s) URL');
    const challenge = bearerChallengeParams(wwwAuthenticate ?? '');
    const named = challenge.get('resource_metadata');
    const protectedResource = await this.firstDocument(
      named !== undefined ? [named] : protectedResourceMetadataUrls(endpoint),
      'the protected resource metadata',
      protectedResourceMetadata,
    );
    // RFC 9728 §3.3: metadata for another resource must not be used.
    if (!resourceCovers(protectedResource.resource, endpoint)) {
      throw new UpstreamAuthorizationError('discovery_failed', 'the protected resource metadata names another resource');
    }
    const issuer = protectedResource.authorizationServers[0];
    const authorizationServer = await this.firstDocument(
      authorizationServerMetadataUrls(issuer),
      'the authorization server metadata',
      (body) => authorizationServerMetadata(body, issuer),
    );
    return { resource: protectedResource.resource, protectedResource, authorizationServer, scopes: scopesOf(challenge, protectedResource) };
  }

  private async firstDocument<T extends ProtectedResourceMetadata | AuthorizationServerMetadata>(
    urls: string[],
    what: string,
    parse: (body: unknown) => T,
  ): Promise<T> {
    let last = 0;
    for (const url of urls) {
      const answer = await this.http.get(url, what);
      if (answer.status === 200) return parse(answer.body);
      last = answer.status;
    }
    throw new UpstreamAuthorizationError('discovery_failed', `${what} was not found (HTTP ${last})`);
  }
}

/** The MCP spec's scope selection: the challenge's `scope`, else everything the resource supports. */
function scopesOf(challenge: Map<string, string>, resource: ProtectedResourceMetadata): string[] {
  const asked = challenge.get('scope')?.split(' ').filter(Boolean);
  return asked && asked.length > 0 ? asked : (resource.scopesSupported ?? []);
}
