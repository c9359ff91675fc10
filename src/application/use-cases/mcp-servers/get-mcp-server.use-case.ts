import { NotFoundError } from '../../../domain/errors';
import { ResourceStore } from '../../ports/resource-store.port';
import { ResourcePolicy } from '../tools/built-in/resource-policy';
import { ToolPins } from '../tools/external/tool-pins';
import { SERVERS } from '../tools/external/upstream-servers';
import { changerOf, McpServerCaller } from './mcp-server-caller';
import { McpServerView, serverIdOf, shown } from './mcp-server-record';

export interface GetMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
}

/** One of the owner's servers, header values masked, with its pins; an unknown or another user's id is a NotFoundError. */
export class GetMcpServer {
  constructor(
    private readonly store: ResourceStore,
    private readonly policy: ResourcePolicy,
    private readonly pins: ToolPins,
  ) {}

  async execute(input: GetMcpServerInput): Promise<McpServerView> {
    const { userId } = changerOf(input.caller);
    const id = serverIdOf(input.id, 'get');
    const record = await this.store.find(userId, SERVERS, id);
    if (!record) throw new NotFoundError('mcp_servers', id);
    return { record: shown(record, this.policy), pins: await this.pins.view(id) };
  }
}
