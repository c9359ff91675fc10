import { ForbiddenError, ValidationError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { ConnectionAttemptStore } from '../../../ports/connection-attempt-store.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { ClientRegistrationStore } from '../../../ports/client-registration-store.port';
import { AuthorizationCallback, UpstreamAuthorization, UpstreamAuthorizationError } from '../../../ports/upstream-authorization.port';
import { SERVERS } from '../external/upstream-servers';
import { changerOf, McpServerCaller } from '../mcp-servers/mcp-server-caller';
import { connectionEvent } from './mcp-connection-audit';
import { authorizationFailure } from './oauth-failure';

export interface CompleteOAuthConnectionInput {
  caller: McpServerCaller;
  /** The query the authorization server sent the browser back with. */
  callback: AuthorizationCallback;
}

/**
 * The authorization server's redirect back, handed over by the console as
 * its signed-in user: the state names an attempt THAT USER started (on any
 * replica; taken once, so a replayed callback finds nothing). Binding it to
 * the user, not to the state alone, is what stops a connection hijack:
 * someone who gets another person to authorize a URL they started would
 * otherwise have that person's upstream token on their own connection. The
 * code is exchanged, and the token set stored sealed as the user's
 * connection, with `mcp_connection.created`. An unknown, used, expired or
 * other user's state, or a server gone since, is a ValidationError that
 * wrote nothing but the attempt's use.
 */
export class CompleteOAuthConnection {
  constructor(
    private readonly attempts: ConnectionAttemptStore,
    private readonly authorization: UpstreamAuthorization,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly registrations: ClientRegistrationStore,
  ) {}

  /** The server connected to. */
  async execute(input: CompleteOAuthConnectionInput): Promise<{ serverId: string }> {
    const { callback } = input;
    const caller = changerOf(input.caller);
    if (caller.actor.type === 'user' && caller.actor.id !== caller.userId) {
      throw new ForbiddenError("A connection holds its own user's credential: only that user may connect");
    }
    if (typeof callback.state !== 'string' || callback.state.length === 0 || callback.state.length > 512)
      throw ValidationError.single('state', 'is required');
    const attempt = await this.attempts.take(callback.state, caller.userId, this.clock.now());
    if (!attempt)
      throw ValidationError.single('state', 'is unknown, expired, already used or from a connection someone else started: connect again');
    const { userId, serverId, pending } = attempt;
    const tokens = await this.authorization.complete(pending, callback).catch(async (error: unknown) => {
      // The server no longer knows the client kept for it: the next connect registers again.
      if (error instanceof UpstreamAuthorizationError && error.oauthError === 'invalid_client' && pending.client.source === 'dynamic')
        await this.registrations.forget(pending.client.issuer, pending.client.clientId);
      throw authorizationFailure(error);
    });
    await this.work.run(async ({ records, connections, audit }) => {
      const server = await records.find(userId, SERVERS, serverId);
      if (!server) throw ValidationError.single('state', 'names a server that no longer exists');
      const grant = { tokens, client: pending.client, authorizationServer: pending.authorizationServer, resource: pending.resource };
      await connections.saveGrant(userId, serverId, grant);
      await audit.append([connectionEvent('mcp_connection.created', caller, server, this.clock.now())]);
    });
    return { serverId };
  }
}
