import { NotFoundError } from '../../../../domain/errors';
import { ResourceStore } from '../../../ports/resource-store.port';
import { ResourcePolicy } from '../built-in/resource-policy';
import { ToolPins } from '../external/tool-pins';
import { SERVERS } from '../external/upstream-servers';
import { changerFor, McpServerCaller } from './mcp-server-caller';
import { McpServerView, serverIdOf, shown } from './mcp-server-record';

export interface GetMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
}

/**
 * One of the owner's servers, header values masked, with its pins; an unknown
 * id, or another user's for anyone but an admin, is a NotFoundError.
 */
export class GetMcpServer {
  constructor(
    private readonly store: ResourceStore,
    private readonly policy: ResourcePolicy,
    private readonly pins: ToolPins,
  ) {}

  async execute(input: GetMcpServerInput): Promise<McpServerView> {
    const id = serverIdOf(input.id, 'get');
    const { userId } = await changerFor(input.caller, id, (server) => this.store.ownerOf(SERVERS, server));
    const record = await this.store.find(userId, SERVERS, id);
    if (!record) throw new NotFoundError('mcp_servers', id);
    return { record: shown(record, this.policy), pins: await this.pins.view(id) };
  }
}
