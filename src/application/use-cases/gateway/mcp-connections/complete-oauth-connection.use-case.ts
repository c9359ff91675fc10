import { NO_ORIGIN } from '../../../../domain/audit';
import { ValidationError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { ConnectionAttemptStore } from '../../../ports/connection-attempt-store.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { AuthorizationCallback, UpstreamAuthorization } from '../../../ports/upstream-authorization.port';
import { SERVERS } from '../external/upstream-servers';
import { connectionEvent } from './mcp-connection-audit';
import { authorizationFailure } from './oauth-failure';

export interface CompleteOAuthConnectionInput {
  callback: AuthorizationCallback;
}

/**
 * The authorization server's redirect back: the state names the attempt (on
 * any replica; taken once, so a replayed callback finds nothing), and so the
 * user and server, with no token of the user's. The code is exchanged, and
 * the token set stored sealed as the user's connection, with
 * `mcp_connection.created`. An unknown, used or expired state, or a server
 * gone since, is a ValidationError that wrote nothing but the attempt's use.
 */
export class CompleteOAuthConnection {
  constructor(
    private readonly attempts: ConnectionAttemptStore,
    private readonly authorization: UpstreamAuthorization,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** The server connected to. */
  async execute(input: CompleteOAuthConnectionInput): Promise<{ serverId: string }> {
    const { callback } = input;
    if (typeof callback.state !== 'string' || callback.state.length === 0 || callback.state.length > 512)
      throw ValidationError.single('state', 'is required');
    const attempt = await this.attempts.take(callback.state, this.clock.now());
    if (!attempt) throw ValidationError.single('state', 'is unknown, expired or already used: connect again');
    const { userId, serverId, pending } = attempt;
    const tokens = await this.authorization.complete(pending, callback).catch((error: unknown) => {
      throw authorizationFailure(error);
    });
    await this.work.run(async ({ records, connections, audit }) => {
      const server = await records.find(userId, SERVERS, serverId);
      if (!server) throw ValidationError.single('state', 'names a server that no longer exists');
      const grant = { tokens, client: pending.client, authorizationServer: pending.authorizationServer, resource: pending.resource };
      await connections.saveGrant(userId, serverId, grant);
      const changer = { userId, keyId: null, actor: { type: 'user' as const, id: userId }, origin: NO_ORIGIN };
      await audit.append([connectionEvent('mcp_connection.created', changer, server, this.clock.now())]);
    });
    return { serverId };
  }
}
