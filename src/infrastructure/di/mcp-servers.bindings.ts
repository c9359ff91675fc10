import { Container } from 'inversify';
import { Clock } from '../../application/ports/clock.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { UpstreamAddressCheck } from '../../application/ports/upstream-address-check.port';
import { CreateMcpServer } from '../../application/use-cases/gateway/mcp-servers/create-mcp-server.use-case';
import { DeleteMcpServer } from '../../application/use-cases/gateway/mcp-servers/delete-mcp-server.use-case';
import { GetMcpServer } from '../../application/use-cases/gateway/mcp-servers/get-mcp-server.use-case';
import { ListMcpServers } from '../../application/use-cases/gateway/mcp-servers/list-mcp-servers.use-case';
import { McpServerUseCases } from '../../application/use-cases/gateway/mcp-servers/mcp-server-use-cases';
import { UpdateMcpServer } from '../../application/use-cases/gateway/mcp-servers/update-mcp-server.use-case';
import { mcpServerPolicy } from '../../application/use-cases/gateway/external/mcp-server-policy';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { McpServersController } from '../../adapters/http/controllers/mcp-servers.controller';
import { GuardedAddressCheck } from '../../adapters/mcp/upstream/guarded-address-check';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { Logger } from 'pino';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** The most a REST registration waits on DNS before leaving the address to the connection-time check. */
const ADDRESS_CHECK_TIMEOUT_MS = 5000;

/**
 * Upstream MCP server records: one set of use-cases, called by the
 * mcp_servers tool (CallTool, mcp.bindings.ts) and by /api/v1/mcp-servers.
 * A registration's address is checked by the rule every connection uses
 * (MCP_UPSTREAM_ALLOWLIST), with a guard of its own.
 */
export function bindMcpServers(c: Container): void {
  c.bind<UpstreamAddressCheck>(TOKENS.UpstreamAddressCheck).toResolvedValue(
    ({ mcp }: Config, logger: Logger) => new GuardedAddressCheck(
      new UpstreamAddressGuard(mcp.upstreamAllowlist), Math.min(mcp.upstreamTimeoutMs, ADDRESS_CHECK_TIMEOUT_MS), (message) => logger.warn(message),
    ),
    [TOKENS.Config, TOKENS.Logger],
  );
  c.bind<McpServerUseCases>(TOKENS.McpServerUseCases).toResolvedValue(
    (store: ResourceStore, work: UnitOfWork, clock: Clock, pins: ToolPins, addresses: UpstreamAddressCheck, { mcp }: Config) => {
      const policy = mcpServerPolicy(mcp.maxServersPerUser);
      return {
        list: new ListMcpServers(store, policy, pins),
        get: new GetMcpServer(store, policy, pins),
        create: new CreateMcpServer(work, clock, policy, addresses),
        update: new UpdateMcpServer(work, clock, policy, pins, addresses),
        remove: new DeleteMcpServer(work, clock),
      };
    },
    [TOKENS.ResourceStore, TOKENS.UnitOfWork, TOKENS.Clock, ToolPins, TOKENS.UpstreamAddressCheck, TOKENS.Config],
  );
  c.bind(McpServersController).toResolvedValue((useCases: McpServerUseCases) => new McpServersController(useCases), [TOKENS.McpServerUseCases]);
}
