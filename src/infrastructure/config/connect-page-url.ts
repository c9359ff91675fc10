import { ConnectUrl } from '../../application/use-cases/gateway/external/upstream-credentials';
import { Config } from './config';

/**
 * The console's connect page for a server, as a tool error names it: under
 * MCP_RESOURCE_URL's base (the public URL of /mcp, without /mcp) when it is
 * set, else a path on whatever host the client reached keygate at.
 */
export function connectPageUrl({ mcp }: Pick<Config, 'mcp'>): ConnectUrl {
  const base = mcp.oauth === null ? '' : mcp.oauth.resourceUrl.replace(/\/mcp\/?$/, '').replace(/\/+$/, '');
  return (serverId) => `${base}/console/#/servers/${encodeURIComponent(serverId)}/connect`;
}
