import { NotFoundError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { serverEvent } from '../external/mcp-server-audit';
import { SERVERS } from '../external/upstream-servers';
import { changerFor, McpServerCaller } from './mcp-server-caller';
import { serverIdOf } from './mcp-server-record';

export interface DeleteMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
}

/**
 * Removes a server with its pins; `mcp_server.deleted` names it. An unknown
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
    await this.work.run(async ({ records, audit }) => {
      // Its name is read before it goes, for the event.
      const before = await records.find(changer.userId, SERVERS, id);
      if (!(await records.remove(changer.userId, SERVERS, id))) throw new NotFoundError('mcp_servers', id);
      if (before) await audit.append([serverEvent('mcp_server.deleted', changer, before, this.clock.now())]);
    });
  }
}
