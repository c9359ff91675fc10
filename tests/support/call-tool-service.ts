import { ExternalTools } from '../../src/application/ports/external-tools.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { UpstreamAddressCheck } from '../../src/application/ports/upstream-address-check.port';
import { CreateMcpServer } from '../../src/application/use-cases/gateway/mcp-servers/create-mcp-server.use-case';
import { DeleteMcpServer } from '../../src/application/use-cases/gateway/mcp-servers/delete-mcp-server.use-case';
import { GetMcpServer } from '../../src/application/use-cases/gateway/mcp-servers/get-mcp-server.use-case';
import { ListMcpServers } from '../../src/application/use-cases/gateway/mcp-servers/list-mcp-servers.use-case';
import { McpServerUseCases } from '../../src/application/use-cases/gateway/mcp-servers/mcp-server-use-cases';
import { UpdateMcpServer } from '../../src/application/use-cases/gateway/mcp-servers/update-mcp-server.use-case';
import { ANY_DATA, ResourcePolicy } from '../../src/application/use-cases/gateway/built-in/resource-policy';
import { CallTool, ResourcePolicies } from '../../src/application/use-cases/gateway/tools/call-tool.use-case';
import { ToolPins } from '../../src/application/use-cases/gateway/external/tool-pins';
import { Sha256ContentDigest } from '../../src/adapters/crypto/sha256-content-digest';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryToolPinStore } from '../fakes/in-memory-tool-pin-store';
import { InMemoryUnitOfWork } from '../fakes/in-memory-unit-of-work';

/** ToolPins over in-memory pins (shared by its transactions); `audit.records` holds the events it appended. */
export function makeToolPins(options: { maxPins?: number; work?: InMemoryUnitOfWork; clock?: FixedClock } = {}) {
  const work = options.work ?? new InMemoryUnitOfWork({ pins: new InMemoryToolPinStore() });
  const store = work.ports.pins as InMemoryToolPinStore;
  const pins = new ToolPins(store, work, new Sha256ContentDigest(), options.clock ?? new FixedClock(), options.maxPins ?? 500);
  return { pins, store, audit: work.audit, work };
}

/** Admits every address, as the mcp_servers tool's registrations always were. */
export const ANY_ADDRESS: UpstreamAddressCheck = { check: async () => undefined };

/** The MCP server use-cases over `store` and `work`'s transactions, as the container builds them. */
export function makeMcpServerUseCases(
  store: ResourceStore,
  work: InMemoryUnitOfWork,
  clock: FixedClock,
  pins: ToolPins,
  policy: ResourcePolicy,
  addresses: UpstreamAddressCheck = ANY_ADDRESS,
): McpServerUseCases {
  return {
    list: new ListMcpServers(store, policy, pins),
    get: new GetMcpServer(store, policy, pins),
    create: new CreateMcpServer(work, clock, policy, addresses),
    update: new UpdateMcpServer(work, clock, policy, pins, addresses),
    remove: new DeleteMcpServer(work, clock),
  };
}

/** CallTool over `store`, its transactions over the same store; `audit.records` holds what they appended. */
export function makeCallTool(
  store: ResourceStore,
  policies: ResourcePolicies,
  external: ExternalTools,
  work = new InMemoryUnitOfWork({ records: store }),
) {
  const clock = new FixedClock();
  const { pins } = makeToolPins({ work, clock });
  const servers = makeMcpServerUseCases(store, work, clock, pins, policies.mcp_servers ?? ANY_DATA);
  return { sut: new CallTool(store, policies, external, servers), audit: work.audit, clock, pins: work.ports.pins as InMemoryToolPinStore };
}
