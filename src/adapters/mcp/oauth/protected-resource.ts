import { Response, Router } from 'express';
import { SERVER_NAME } from '../../../application/use-cases/gateway/external/mcp-server-policy';
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
  return `${url.origin}${metadataPath(url.pathname)}`;
}

/**
 * The canonical URL of /mcp/servers/<name>: /mcp's, one level deeper, as the
 * endpoint itself is. Null for a name no server can have: that path is no
 * resource of keygate's, so it has no metadata and no audience.
 */
export function serverResourceUrl(resourceUrl: string, name: string | undefined): string | null {
  if (name === undefined || !SERVER_NAME.test(name)) return null;
  return `${resourceUrl.replace(/\/$/, '')}/servers/${name}`;
}

function metadataPath(pathname: string): string {
  return pathname === '/' ? WELL_KNOWN : `${WELL_KNOWN}${pathname}`;
}

/**
 * The protected resource metadata documents (RFC 9728 section 2) of /mcp and
 * of every /mcp/servers/<name>, each at the path its URL names, so a client
 * finds it from a 401's `resource_metadata` or, on a fresh connection, from
 * the endpoint's own URL alone (section 3.1). Public: any origin may read
 * them. A server's document is served for any name a server could have,
 * whether one exists or not, so it tells a caller without credentials nothing
 * about which names exist.
 */
export function protectedResourceRoutes(options: ProtectedResourceOptions): Router {
  const document = (resource: string) =>
    JSON.stringify({
      resource,
      authorization_servers: options.authorizationServers,
      scopes_supported: SCOPE_CATALOG.map((s) => s.scope),
      bearer_methods_supported: ['header'],
      resource_name: 'keygate',
    });
  const body = document(options.resourceUrl);
  const router = Router();
  const mcpPath = new URL(options.resourceUrl).pathname;
  router.get(metadataPath(mcpPath), (_req, res) => sendDocument(res, body));
  router.get(`${metadataPath(mcpPath).replace(/\/$/, '')}/servers/:name`, (req, res, next) => {
    const resource = serverResourceUrl(options.resourceUrl, req.params.name);
    if (resource === null) return next();
    sendDocument(res, document(resource));
  });
  return router;
}

function sendDocument(res: Response, body: string): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.type('application/json').send(body);
}
