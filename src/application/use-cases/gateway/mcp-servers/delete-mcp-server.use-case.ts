import { NotFoundError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { serverEvent } from '../external/mcp-server-audit';
import { SERVERS } from '../external/upstream-servers';
import { connectionEvent } from '../mcp-connections/mcp-connection-audit';
import { changerFor, McpServerCaller } from './mcp-server-caller';
import { serverIdOf } from './mcp-server-record';

export interface DeleteMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
}

/**
 * Removes a server with its pins and its owner's connection to it;
 * `mcp_server.deleted` names it, and `mcp_connection.revoked` the
 * connection if there was one (the table's cascade takes any other). An unknown
 * id, or another user's for anyone but an admin, is a NotFoundError.
 */
export class DeleteMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: DeleteMcpServerInput): Promise<void> {
    const id = serverIdOf(input.id, 'delete');
    const changer = await changerFor(input.caller, id, (server) => this.work.run(({ records }) => records.ownerOf(SERVERS, server)));
    await this.work.run(async ({ records, connections, audit }) => {
      // Its name is read before it goes, for the event.
      const before = await records.find(changer.userId, SERVERS, id);
      const connection = before && (await connections.remove(changer.userId, id));
      if (!(await records.remove(changer.userId, SERVERS, id))) throw new NotFoundError('mcp_servers', id);
      if (!before) return;
      const at = this.clock.now();
      await audit.append([
        ...(connection ? [connectionEvent('mcp_connection.revoked', changer, before, at)] : []),
        serverEvent('mcp_server.deleted', changer, before, at),
      ]);
    });
  }
}
