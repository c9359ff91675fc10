import { ConflictError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { ConnectionAttemptStore } from '../../../ports/connection-attempt-store.port';
import { ClientRegistrationStore } from '../../../ports/client-registration-store.port';
import { AuthorizationServerMetadata, ClientRegistration, UpstreamAuthorization } from '../../../ports/upstream-authorization.port';
import { ServerAuth } from '../external/server-auth';
import { authorizationFailure } from './oauth-failure';

/** How long a user has to come back from the authorization server. */
export const ATTEMPT_TTL_MS = 10 * 60_000;
/** The client name keygate registers under (RFC 7591 `client_name`), shown by consent screens. */
export const CLIENT_NAME = 'keygate';

export type OAuthAuth = Extract<ServerAuth, { type: 'oauth' }>;

/** How long a dynamic registration is reused before keygate registers again (one the server forgot heals by then). */
export const REGISTRATION_REUSE_MS = 24 * 3600_000;

export interface OAuthConnectionStartOptions {
  authorization: UpstreamAuthorization;
  attempts: ConnectionAttemptStore;
  registrations: ClientRegistrationStore;
  clock: Clock;
  /** The console's callback page under keygate's configured public URL; null when none is configured. */
  redirectUri: string | null;
  /** Where keygate serves its Client ID Metadata Document (an https public URL only); null: it serves none. */
  metadataDocumentUrl: string | null;
}

/**
 * Begins a user's oauth connection to a server: the upstream's authorization
 * server found by discovery (RFC 9728, 8414), keygate's client there (the
 * record's; else its Client ID Metadata Document URL when the server takes
 * one; else the dynamic registration kept for that server, made once and
 * reused by every user for a day), and an authorization with PKCE and the
 * resource indicator, kept where any replica finds it when the browser comes
 * back. The URL the user's browser goes to next.
 */
export class OAuthConnectionStart {
  constructor(private readonly options: OAuthConnectionStartOptions) {}

  async start(userId: string, server: ResourceRecord, auth: OAuthAuth): Promise<string> {
    const { authorization, attempts, clock, redirectUri } = this.options;
    if (redirectUri === null) {
      throw new ConflictError(
        "oauth connections need keygate's public URL for the authorization server to send the browser back to: set PUBLIC_URL",
      );
    }
    try {
      const discovered = await authorization.discover(String(server.data.url));
      const client = await this.clientAt(discovered.authorizationServer, auth, redirectUri);
      const pending = authorization.begin({ discovered, client, redirectUri, ...(auth.scopes ? { scopes: auth.scopes } : {}) });
      const expiresAt = new Date(clock.now().getTime() + ATTEMPT_TTL_MS);
      await attempts.save({ userId, serverId: server.id, pending, expiresAt });
      return pending.authorizationUrl;
    } catch (error) {
      throw authorizationFailure(error);
    }
  }

  private async clientAt(as: AuthorizationServerMetadata, auth: OAuthAuth, redirectUri: string): Promise<ClientRegistration> {
    const { authorization, registrations, clock, metadataDocumentUrl } = this.options;
    const given = auth.client_id === undefined ? undefined : { clientId: auth.client_id, clientSecret: auth.client_secret };
    const byDocument = as.clientIdMetadataDocumentSupported && metadataDocumentUrl !== null;
    if (!given && !byDocument) {
      const kept = await registrations.find(as.issuer, redirectUri, new Date(clock.now().getTime() - REGISTRATION_REUSE_MS));
      if (kept) return kept;
    }
    const client = await authorization.register({
      authorizationServer: as,
      ...(given ? { given } : {}),
      ...(byDocument ? { metadataDocumentUrl } : {}),
      redirectUri,
      clientName: CLIENT_NAME,
    });
    if (client.source === 'dynamic') await registrations.save(client, redirectUri, clock.now());
    return client;
  }
}
