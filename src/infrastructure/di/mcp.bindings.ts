import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { AuthorizeToolCall } from '../../application/use-cases/authorize-tool-call/authorize-tool-call.use-case';
import { CallTool } from '../../application/use-cases/call-tool/call-tool.use-case';
import { FilterTools } from '../../application/use-cases/filter-tools/filter-tools.use-case';
import { ListTools } from '../../application/use-cases/list-tools/list-tools.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { McpController } from '../../adapters/mcp/mcp.controller';
import { McpServerFactory } from '../../adapters/mcp/mcp-server.factory';
import { PostgresResourceStore } from '../../adapters/persistence/postgres-resource.store';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

export const MCP_TOKENS = {
  ResourceStore: Symbol.for('keygate.ResourceStore'),
  McpLog: Symbol.for('keygate.McpLog'),
} as const;

type Log = (error: unknown) => void;

/** The MCP gateway: tool use-cases, the resource store behind them, the /mcp edge. */
export function bindMcp(c: Container): void {
  c.bind<Log>(MCP_TOKENS.McpLog).toConstantValue((error) => console.error(error));
  c.bind<ResourceStore>(MCP_TOKENS.ResourceStore).toResolvedValue(
    (ds: DataSource) => new PostgresResourceStore(ds),
    [TOKENS.DataSource],
  );
  c.bind(AuthorizeToolCall).toConstantValue(new AuthorizeToolCall());
  c.bind(ListTools).toResolvedValue((filter: FilterTools) => new ListTools(filter), [FilterTools]);
  c.bind(CallTool).toResolvedValue(
    (s: ResourceStore, authorize: AuthorizeToolCall) => new CallTool(s, authorize),
    [MCP_TOKENS.ResourceStore, AuthorizeToolCall],
  );
  c.bind(McpServerFactory).toResolvedValue(
    (list: ListTools, call: CallTool, log: Log) => new McpServerFactory(list, call, log),
    [ListTools, CallTool, MCP_TOKENS.McpLog],
  );
  c.bind(McpController).toResolvedValue(
    (validate: ValidateKey, authorize: AuthorizeToolCall, servers: McpServerFactory, config: Config) =>
      new McpController(validate, authorize, servers, config.mcp),
    [ValidateKey, AuthorizeToolCall, McpServerFactory, TOKENS.Config],
  );
}
