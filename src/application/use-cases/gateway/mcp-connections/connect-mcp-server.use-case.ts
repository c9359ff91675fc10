import { ForbiddenError, NotFoundError, ValidationError } from '../../../../domain/errors';
import { Clock } from '../../../ports/clock.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { authOf } from '../external/server-auth';
import { SERVERS } from '../external/upstream-servers';
import { changerOf, McpServerCaller } from '../mcp-servers/mcp-server-caller';
import { serverIdOf } from '../mcp-servers/mcp-server-record';
import { connectionEvent } from './mcp-connection-audit';
import { connectionView, McpConnectionView } from './mcp-connection-view';
import { OAuthConnectionStart } from './oauth-connection-start';
import { userSecretOf } from './user-secret';

export interface ConnectMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
  /** The user's own secret for a user_secret server. */
  secret: unknown;
}

/** A user_secret connection as stored; for an oauth server, where the user's browser goes to authorize. */
export type ConnectResult = { connected: McpConnectionView } | { authorizationUrl: string };

/**
 * Connects the caller to one of their servers: for a user_secret server,
 * stores their secret (sealed), replacing any connection they had, with
 * `mcp_connection.created` in the same transaction. A connection holds its
 * user's own credential, so only that user connects (an admin acting for
 * someone else is refused). For an oauth server, begins an authorization
 * (OAuthConnectionStart) whose callback stores the token set.
 */
export class ConnectMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly oauth: OAuthConnectionStart | null = null,
  ) {}

  async execute(input: ConnectMcpServerInput): Promise<ConnectResult> {
    const id = serverIdOf(input.id, 'connect');
    const changer = changerOf(input.caller);
    if (changer.actor.type === 'user' && changer.actor.id !== changer.userId) {
      throw new ForbiddenError("A connection holds its own user's credential: only that user may connect");
    }
    const found = await this.work.run(({ records }) => records.find(changer.userId, SERVERS, id));
    if (!found) throw new NotFoundError('mcp_servers', id);
    const oauth = authOf(found.data);
    if (oauth.type === 'oauth' && input.secret !== undefined)
      throw ValidationError.single(
        'auth',
        'this server uses oauth auth: it takes no secret; connect without one to authorize at its authorization server',
      );
    if (oauth.type === 'oauth' && this.oauth) {
      // Outside any transaction: discovery and registration are requests to the authorization server.
      return { authorizationUrl: await this.oauth.start(changer.userId, found, oauth) };
    }
    const connected = await this.work.run(async ({ records, connections, audit }) => {
      const server = await records.find(changer.userId, SERVERS, id);
      if (!server) throw new NotFoundError('mcp_servers', id);
      const auth = authOf(server.data);
      if (auth.type !== 'user_secret') throw ValidationError.single('auth', refusal(auth.type));
      const secret = userSecretOf(input.secret, auth.prefix ?? '');
      const { connection } = await connections.saveSecret(changer.userId, id, secret);
      await audit.append([connectionEvent('mcp_connection.created', changer, server, this.clock.now())]);
      return connectionView(server, connection);
    });
    return { connected };
  }
}

function refusal(type: string): string {
  if (type === 'oauth') return 'this server uses oauth auth: connecting through an authorization server is not available yet';
  if (type === 'token_exchange')
    return "this server uses token_exchange auth: each call exchanges the caller's own token, there is nothing to connect";
  return 'this server uses static auth (its own headers, shared by every caller): there is nothing to connect';
}
