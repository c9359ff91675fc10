import { ConflictError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { ConnectionAttemptStore } from '../../../ports/connection-attempt-store.port';
import { UpstreamAuthorization } from '../../../ports/upstream-authorization.port';
import { ServerAuth } from '../external/server-auth';
import { authorizationFailure } from './oauth-failure';

/** How long a user has to come back from the authorization server. */
export const ATTEMPT_TTL_MS = 10 * 60_000;
/** The client name keygate registers under (RFC 7591 `client_name`), shown by consent screens. */
export const CLIENT_NAME = 'keygate';

export type OAuthAuth = Extract<ServerAuth, { type: 'oauth' }>;

/**
 * Begins a user's oauth connection to a server: the upstream's authorization
 * server found by discovery (RFC 9728, 8414), keygate registered with it (the
 * record's client, else dynamically), and an authorization with PKCE and the
 * resource indicator, kept where any replica finds it when the browser comes
 * back. The URL the user's browser goes to next.
 */
export class OAuthConnectionStart {
  constructor(
    private readonly authorization: UpstreamAuthorization,
    private readonly attempts: ConnectionAttemptStore,
    private readonly clock: Clock,
    /** The console's callback page under keygate's configured public URL; null when none is configured. */
    private readonly redirectUri: string | null,
  ) {}

  async start(userId: string, server: ResourceRecord, auth: OAuthAuth): Promise<string> {
    const { redirectUri } = this;
    if (redirectUri === null) {
      throw new ConflictError(
        "oauth connections need keygate's public URL for the authorization server to send the browser back to: set PUBLIC_URL",
      );
    }
    try {
      const discovered = await this.authorization.discover(String(server.data.url));
      const given = auth.client_id === undefined ? undefined : { clientId: auth.client_id, clientSecret: auth.client_secret };
      const client = await this.authorization.register({
        authorizationServer: discovered.authorizationServer,
        ...(given ? { given } : {}),
        redirectUri,
        clientName: CLIENT_NAME,
      });
      const pending = this.authorization.begin({ discovered, client, redirectUri, ...(auth.scopes ? { scopes: auth.scopes } : {}) });
      const expiresAt = new Date(this.clock.now().getTime() + ATTEMPT_TTL_MS);
      await this.attempts.save({ userId, serverId: server.id, pending, expiresAt });
      return pending.authorizationUrl;
    } catch (error) {
      throw authorizationFailure(error);
    }
  }
}
