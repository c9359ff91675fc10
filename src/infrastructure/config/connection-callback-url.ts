import { CONNECTION_CALLBACK_PATH, RedirectUri } from '../../adapters/http/controllers/mcp-connections.controller';
import { Config } from './config';

/**
 * The redirect URI of oauth connections: the callback route under
 * MCP_RESOURCE_URL's base (the public URL of /mcp, without /mcp) when it is
 * set, as the connect page's; else under the origin the user's request
 * reached keygate at (the console's own).
 */
export function connectionCallbackUrl({ mcp }: Pick<Config, 'mcp'>): RedirectUri {
  const base = mcp.oauth === null ? null : mcp.oauth.resourceUrl.replace(/\/mcp\/?$/, '').replace(/\/+$/, '');
  return (requestOrigin) => (base ?? requestOrigin) + CONNECTION_CALLBACK_PATH;
}
