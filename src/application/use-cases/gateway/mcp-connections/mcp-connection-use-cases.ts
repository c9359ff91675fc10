import { CompleteOAuthConnection } from './complete-oauth-connection.use-case';
import { ConnectMcpServer } from './connect-mcp-server.use-case';
import { DisconnectMcpServer } from './disconnect-mcp-server.use-case';
import { GetMcpConnection } from './get-mcp-connection.use-case';

/** Users' connections to their upstream MCP servers, behind /api/v1/mcp-servers/:id/connection. */
export interface McpConnectionUseCases {
  get: GetMcpConnection;
  connect: ConnectMcpServer;
  disconnect: DisconnectMcpServer;
  /** An oauth connection's callback, handed over by the console as its signed-in user. */
  complete: CompleteOAuthConnection;
}
