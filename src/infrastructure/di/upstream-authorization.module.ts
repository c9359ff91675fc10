import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { pinnedAgent } from '../../adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { OAuthHttp } from '../../adapters/oauth-client/oauth-http';
import { OAuthUpstreamAuthorization } from '../../adapters/oauth-client/oauth-upstream-authorization';
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
 * with the upstream's deadline; https only in production. And where pending
 * authorizations wait for their callback (PostgreSQL, for any replica).
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
}
