import { RequestHandler } from 'express';
import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { pinnedAgent } from '../../adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { OAuthHttp } from '../../adapters/oauth-client/oauth-http';
import { OAuthUpstreamAuthorization } from '../../adapters/oauth-client/oauth-upstream-authorization';
import { clientMetadataRouter } from '../../adapters/http/controllers/client-metadata.router';
import { PostgresClientRegistrationStore } from '../../adapters/persistence/connections/postgres-client-registration.store';
import { ClientRegistrationStore } from '../../application/ports/client-registration-store.port';
import { CLIENT_NAME } from '../../application/use-cases/gateway/mcp-connections/oauth-connection-start';
import { clientMetadataDocumentUrl, connectionCallbackUrl } from '../config/connection-callback-url';
import { PostgresConnectionAttemptStore } from '../../adapters/persistence/connections/postgres-connection-attempt.store';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { ConnectionAttemptStore } from '../../application/ports/connection-attempt-store.port';
import { UpstreamAuthorization } from '../../application/ports/upstream-authorization.port';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Metadata documents and token answers are small; 64 KiB leaves room for long scope lists and JWTs. */
export const OAUTH_MAX_BYTES = 64 * 1024;

/**
 * keygate as an OAuth client of upstream authorization servers (issue 27):
 * every request through the pinned agent of upstream MCP requests, so the
 * address guard and MCP_UPSTREAM_ALLOWLIST decide as for the upstream itself,
 * with the upstream's deadline; https only in production. Where pending
 * authorizations wait for their callback and dynamic registrations are kept
 * (PostgreSQL, for any replica), and keygate's Client ID Metadata Document.
 */
export function bindUpstreamAuthorization(c: Container): void {
  c.bind<UpstreamAuthorization>(TOKENS.UpstreamAuthorization).toResolvedValue(
    ({ mcp, env }: Config) => {
      const production = env === 'production';
      const dispatcher = pinnedAgent(new UpstreamAddressGuard(mcp.upstreamAllowlist), mcp.upstreamTimeoutMs);
      const http = new OAuthHttp({ dispatcher, production, timeoutMs: mcp.upstreamTimeoutMs, maxBytes: OAUTH_MAX_BYTES });
      return new OAuthUpstreamAuthorization({ http, production });
    },
    [TOKENS.Config],
  );
  c.bind<ConnectionAttemptStore>(TOKENS.ConnectionAttemptStore).toResolvedValue(
    (ds: DataSource, secrets: RecordSecrets) => new PostgresConnectionAttemptStore(ds.manager, secrets.box),
    [TOKENS.DataSource, RecordSecrets],
  );
  c.bind<ClientRegistrationStore>(TOKENS.ClientRegistrationStore).toResolvedValue(
    (ds: DataSource, secrets: RecordSecrets) => new PostgresClientRegistrationStore(ds.manager, secrets.box),
    [TOKENS.DataSource, RecordSecrets],
  );
  c.bind<RequestHandler>(TOKENS.ClientMetadataRoutes).toResolvedValue(
    (config: Config) => clientMetadataRouter(clientMetadataDocumentUrl(config), connectionCallbackUrl(config), CLIENT_NAME),
    [TOKENS.Config],
  );
}
