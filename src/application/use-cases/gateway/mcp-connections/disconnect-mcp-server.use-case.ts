import { NotFoundError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { UpstreamAuthorization } from '../../../ports/upstream-authorization.port';
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
 * `mcp_connection.revoked` in the same transaction. An oauth connection's
 * grant is first revoked at the authorization server (RFC 7009, its refresh
 * token, else its access token), best-effort: a server that cannot be reached
 * or offers no revocation does not keep the connection. An admin may disconnect
 * any user's server, as admins delete servers. No connection, an unknown
 * server, or another user's for anyone but an admin, is a NotFoundError.
 */
export class DisconnectMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly authorization: UpstreamAuthorization | null = null,
  ) {}

  async execute(input: DisconnectMcpServerInput): Promise<void> {
    const id = serverIdOf(input.id, 'disconnect');
    const changer = await changerFor(input.caller, id, (server) => this.work.run(({ records }) => records.ownerOf(SERVERS, server)));
    await this.revoke(changer.userId, id);
    await this.work.run(async ({ records, connections, audit }) => {
      const server = await records.find(changer.userId, SERVERS, id);
      if (!server) throw new NotFoundError('mcp_servers', id);
      if (!(await connections.remove(changer.userId, id))) throw new NotFoundError('mcp_connection', id);
      await audit.append([connectionEvent('mcp_connection.revoked', changer, server, this.clock.now())]);
    });
  }

  private async revoke(userId: string, serverId: string): Promise<void> {
    if (!this.authorization) return;
    const opened = await this.work.run(({ connections }) => connections.openGrant(userId, serverId));
    if (!opened) return;
    const { grant } = opened;
    const [token, tokenTypeHint] =
      grant.tokens.refreshToken === undefined
        ? [grant.tokens.accessToken, 'access_token' as const]
        : [grant.tokens.refreshToken, 'refresh_token' as const];
    // Best-effort: the user asked to forget the connection, which happens either way.
    await this.authorization
      .revoke({ authorizationServer: grant.authorizationServer, client: grant.client, token, tokenTypeHint })
      .catch(() => undefined);
  }
}
