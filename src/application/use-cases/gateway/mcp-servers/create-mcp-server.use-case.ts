import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { UpstreamAddressCheck } from '../../../ports/upstream-address-check.port';
import { storable } from '../built-in/data-limits';
import { createWithin } from '../built-in/record-actions';
import { ResourcePolicy } from '../built-in/resource-policy';
import { serverEvent } from '../external/mcp-server-audit';
import { SERVERS } from '../external/upstream-servers';
import { refuseAddress } from './address-refusal';
import { changerOf, McpServerCaller } from './mcp-server-caller';
import { serverData, shown } from './mcp-server-record';

export interface CreateMcpServerInput {
  caller: McpServerCaller;
  /** The server's fields: name, url, headers, tool_scopes, resource_scopes, prompt_scopes (the policy's rules). */
  data: Record<string, unknown>;
  /**
   * Refuse now a host the connection would refuse. REST asks for it; the
   * mcp_servers tool does not, and its calls are refused at connection
   * time, as they always were.
   */
  checkAddress?: boolean;
}

/**
 * Registers an upstream MCP server for its owner: the policy's fields, at
 * most MAX_RECORD_DATA_BYTES, within the per-user limit (a ConflictError past
 * it, or for a name the owner already uses), header values sealed by the
 * store. The record and `mcp_server.created` commit together.
 */
export class CreateMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly policy: ResourcePolicy,
    private readonly addresses: UpstreamAddressCheck,
  ) {}

  async execute(input: CreateMcpServerInput): Promise<ResourceRecord> {
    const changer = changerOf(input.caller);
    const data = storable(this.policy.check(serverData(input.data)));
    if (input.checkAddress) await refuseAddress(this.addresses, data.url);
    return this.work.run(async ({ records, audit }) => {
      const record = shown(await createWithin(records, changer.userId, SERVERS, data, this.policy), this.policy);
      await audit.append([serverEvent('mcp_server.created', changer, record, this.clock.now())]);
      return record;
    });
  }
}
