import { CreateMcpServer } from './create-mcp-server.use-case';
import { DeleteMcpServer } from './delete-mcp-server.use-case';
import { GetMcpServer } from './get-mcp-server.use-case';
import { ListMcpServers } from './list-mcp-servers.use-case';
import { UpdateMcpServer } from './update-mcp-server.use-case';

/** The one set of rules for upstream MCP server records, which the mcp_servers tool and the REST API both call. */
export interface McpServerUseCases {
  list: ListMcpServers;
  get: GetMcpServer;
  create: CreateMcpServer;
  update: UpdateMcpServer;
  remove: DeleteMcpServer;
}
