import { McpConnectionView } from '../../../application/use-cases/gateway/mcp-connections/mcp-connection-view';
import { McpConnectionDto } from './mcp-connection.dto';

/** An allow-list of a connection's fields: the view holds no secret, and nothing else could pass here. */
export function presentMcpConnection(view: McpConnectionView): McpConnectionDto {
  return {
    server_id: view.serverId,
    auth_type: view.authType,
    state: view.state,
    kind: view.kind,
    scopes: view.scopes,
    expires_at: view.expiresAt?.toISOString() ?? null,
    account: view.account,
    created_at: view.createdAt?.toISOString() ?? null,
    updated_at: view.updatedAt?.toISOString() ?? null,
  };
}
