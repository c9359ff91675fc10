import { NotFoundError } from '../../../../domain/errors';
import { McpConnectionStore } from '../../../ports/mcp-connection-store.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { SERVERS } from '../external/upstream-servers';
import { changerFor, McpServerCaller } from '../mcp-servers/mcp-server-caller';
import { serverIdOf } from '../mcp-servers/mcp-server-record';
import { connectionView, McpConnectionView } from './mcp-connection-view';

export interface GetMcpConnectionInput {
  caller: McpServerCaller;
  id: string | null;
}

/**
 * The state of the user's connection to one of their servers. An admin reads
 * it for any user's server, as admins read servers; nobody reads a secret.
 * An unknown server, or another user's for anyone but an admin, is a NotFoundError.
 */
export class GetMcpConnection {
  constructor(
    private readonly store: ResourceStore,
    private readonly connections: McpConnectionStore,
  ) {}

  async execute(input: GetMcpConnectionInput): Promise<McpConnectionView> {
    const id = serverIdOf(input.id, 'get');
    const { userId } = await changerFor(input.caller, id, (server) => this.store.ownerOf(SERVERS, server));
    const server = await this.store.find(userId, SERVERS, id);
    if (!server) throw new NotFoundError('mcp_servers', id);
    return connectionView(server, await this.connections.find(userId, id));
  }
}
