import { ConnectUrl } from '../../application/use-cases/gateway/external/upstream-credentials';
import { Config } from './config';

/**
 * The console's connect page for a server, as a tool error names it: under
 * keygate's public URL (PUBLIC_URL, else MCP_RESOURCE_URL's base) when one is
 * set, else a path on whatever host the client reached keygate at.
 */
export function connectPageUrl({ publicUrl }: Pick<Config, 'publicUrl'>): ConnectUrl {
  const base = publicUrl ?? '';
  return (serverId) => `${base}/console/#/servers/${encodeURIComponent(serverId)}/connect`;
}
