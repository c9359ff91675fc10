import { Router } from 'express';
import { SCOPE_CATALOG } from '../../../domain/scope';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceOptions {
  /** The canonical URL of /mcp (MCP_RESOURCE_URL). */
  resourceUrl: string;
  authorizationServers: readonly string[];
}

/** RFC 9728 section 3.1: the well-known segment goes between the host and the resource's path. */
export function resourceMetadataUrl(resourceUrl: string): string {
  const url = new URL(resourceUrl);
  return `${url.origin}${metadataPath(url)}`;
}

function metadataPath(url: URL): string {
  return url.pathname === '/' ? WELL_KNOWN : `${WELL_KNOWN}${url.pathname}`;
}

/**
 * The protected resource metadata document (RFC 9728 section 2), served at
 * the path its URL names, so a client that found it from a 401's
 * `resource_metadata` reads it here. It is public: any origin may read it.
 */
export function protectedResourceRoutes(options: ProtectedResourceOptions): Router {
  const body = JSON.stringify({
    resource: options.resourceUrl,
    authorization_servers: options.authorizationServers,
    scopes_supported: SCOPE_CATALOG.map((s) => s.scope),
    bearer_methods_supported: ['header'],
    resource_name: 'keygate',
  });
  const router = Router();
  router.get(metadataPath(new URL(options.resourceUrl)), (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(body);
  });
  return router;
}
