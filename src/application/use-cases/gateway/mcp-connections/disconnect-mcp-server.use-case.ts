import { NotFoundError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { SERVERS } from '../external/upstream-servers';
import { changerFor, McpServerCaller } from '../mcp-servers/mcp-server-caller';
import { serverIdOf } from '../mcp-servers/mcp-server-record';
import { connectionEvent } from './mcp-connection-audit';

export interface DisconnectMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
}

/**
 * Forgets the user's connection to one of their servers, with
 * `mcp_connection.revoked` in the same transaction. An admin may disconnect
 * any user's server, as admins delete servers. No connection, an unknown
 * server, or another user's for anyone but an admin, is a NotFoundError.
 */
export class DisconnectMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: DisconnectMcpServerInput): Promise<void> {
    const id = serverIdOf(input.id, 'disconnect');
    const changer = await changerFor(input.caller, id, (server) => this.work.run(({ records }) => records.ownerOf(SERVERS, server)));
    await this.work.run(async ({ records, connections, audit }) => {
      const server = await records.find(changer.userId, SERVERS, id);
      if (!server) throw new NotFoundError('mcp_servers', id);
      if (!(await connections.remove(changer.userId, id))) throw new NotFoundError('mcp_connection', id);
      await audit.append([connectionEvent('mcp_connection.revoked', changer, server, this.clock.now())]);
    });
  }
}
