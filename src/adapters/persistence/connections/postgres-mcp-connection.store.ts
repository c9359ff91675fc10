import { EntityManager } from 'typeorm';
import { McpConnectionStore, OAuthGrant, OpenedConnection, OpenedGrant } from '../../../application/ports/mcp-connection-store.port';
import { ConnectionKind, ConnectionState, McpConnection } from '../../../domain/connection/mcp-connection';
import { SecretBoxError } from '../../crypto/aes-gcm-secret-box';
import { databaseCall } from '../database-unavailable';
import { ConnectionSecrets } from './connection-secrets';

interface ConnectionRow {
  id: string;
  user_id: string;
  server_id: string;
  kind: ConnectionKind;
  state: ConnectionState;
  scopes: string[];
  expires_at: Date | null;
  account: string | null;
  sealed_secret: string | null;
  sealed_tokens: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, user_id, server_id, kind, state, scopes, expires_at, account, sealed_secret, sealed_tokens, created_at, updated_at';

/** McpConnectionStore on PostgreSQL (migration 1763900000017); one indexed row per (user, server). */
export class PostgresMcpConnectionStore implements McpConnectionStore {
  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(
    private readonly manager: EntityManager,
    private readonly secrets: ConnectionSecrets,
    /** Told when a sealed secret does not open: the row's id and the box's reason, never a value. */
    private readonly unreadable: (connectionId: string, reason: string) => void = () => undefined,
  ) {}

  async find(userId: string, serverId: string): Promise<McpConnection | null> {
    const row = await this.row(userId, serverId);
    return row && toConnection(row);
  }

  async openSecret(userId: string, serverId: string): Promise<OpenedConnection | null> {
    const row = await this.row(userId, serverId);
    if (row === null || row.kind !== 'user_secret' || row.state !== 'connected' || row.sealed_secret === null) return null;
    try {
      return { connection: toConnection(row), secret: this.secrets.open(userId, serverId, 'secret', row.sealed_secret) };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      this.unreadable(row.id, error.message);
      return null;
    }
  }

  async saveSecret(userId: string, serverId: string, secret: string): Promise<{ connection: McpConnection; created: boolean }> {
    const [row] = await this.query<ConnectionRow & { created: boolean }>(
      `INSERT INTO mcp_connections (user_id, server_id, kind, state, sealed_secret)
       VALUES ($1, $2, 'user_secret', 'connected', $3)
       ON CONFLICT (user_id, server_id) DO UPDATE SET
         kind = 'user_secret', state = 'connected', sealed_secret = EXCLUDED.sealed_secret, sealed_tokens = NULL,
         scopes = '{}', expires_at = NULL, issuer = NULL, account = NULL, client_registration = NULL, refreshing_until = NULL,
         updated_at = now()
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [userId, serverId, this.secrets.seal(userId, serverId, 'secret', secret)],
    );
    return { connection: toConnection(row), created: row.created };
  }

  async openGrant(userId: string, serverId: string): Promise<OpenedGrant | null> {
    const row = await this.row(userId, serverId);
    if (row === null || row.kind !== 'oauth' || row.state !== 'connected' || row.sealed_tokens === null) return null;
    try {
      const grant = JSON.parse(this.secrets.open(userId, serverId, 'tokens', row.sealed_tokens)) as OAuthGrant;
      if (grant.tokens.expiresAt !== undefined) grant.tokens.expiresAt = new Date(grant.tokens.expiresAt);
      return { connection: toConnection(row), grant };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      this.unreadable(row.id, error.message);
      return null;
    }
  }

  async saveGrant(userId: string, serverId: string, grant: OAuthGrant): Promise<{ connection: McpConnection; created: boolean }> {
    const [row] = await this.query<ConnectionRow & { created: boolean }>(
      `INSERT INTO mcp_connections (user_id, server_id, kind, state, scopes, expires_at, issuer, sealed_tokens, account)
       VALUES ($1, $2, 'oauth', 'connected', $3, $4, $5, $6, $7)
       ON CONFLICT (user_id, server_id) DO UPDATE SET
         kind = 'oauth', state = 'connected', scopes = EXCLUDED.scopes, expires_at = EXCLUDED.expires_at, issuer = EXCLUDED.issuer,
         account = EXCLUDED.account,
         sealed_tokens = EXCLUDED.sealed_tokens, sealed_secret = NULL, client_registration = NULL, refreshing_until = NULL,
         updated_at = now()
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [
        userId,
        serverId,
        grant.tokens.scopes,
        grant.tokens.expiresAt ?? null,
        grant.authorizationServer.issuer,
        this.secrets.seal(userId, serverId, 'tokens', JSON.stringify(grant)),
        grant.tokens.account ?? null,
      ],
    );
    return { connection: toConnection(row), created: row.created };
  }

  async claimRefresh(connectionId: string, seconds: number): Promise<boolean> {
    const claimed = await this.query<{ id: string }>(
      `WITH claimed AS (
         UPDATE mcp_connections SET refreshing_until = now() + make_interval(secs => $2)
         WHERE id = $1 AND (refreshing_until IS NULL OR refreshing_until < now()) RETURNING id
       ) SELECT id FROM claimed`,
      [connectionId, seconds],
    );
    return claimed.length === 1;
  }

  async saveRefreshed(
    connectionId: string,
    userId: string,
    serverId: string,
    grant: OAuthGrant,
  ): Promise<{ connection: McpConnection; audit: boolean } | null> {
    // now() is the transaction's time: refresh_audited_at equals it only when this update set it.
    const [row] = await this.query<ConnectionRow & { audit: boolean }>(
      `WITH saved AS (
         UPDATE mcp_connections SET sealed_tokens = $4, scopes = $5, expires_at = $6, refreshing_until = NULL, updated_at = now(),
           account = COALESCE($7, account),
           refresh_audited_at = CASE WHEN refresh_audited_at IS NULL OR refresh_audited_at <= now() - interval '1 hour'
                                     THEN now() ELSE refresh_audited_at END
         WHERE id = $1 AND user_id = $2 AND server_id = $3 AND kind = 'oauth' AND state = 'connected'
         RETURNING ${COLUMNS}, refresh_audited_at = now() AS audit
       ) SELECT * FROM saved`,
      [
        connectionId,
        userId,
        serverId,
        this.secrets.seal(userId, serverId, 'tokens', JSON.stringify(grant)),
        grant.tokens.scopes,
        grant.tokens.expiresAt ?? null,
        grant.tokens.account ?? null,
      ],
    );
    return row ? { connection: toConnection(row), audit: row.audit } : null;
  }

  async releaseRefresh(connectionId: string): Promise<void> {
    await this.query('UPDATE mcp_connections SET refreshing_until = NULL WHERE id = $1', [connectionId]);
  }

  async markFailed(userId: string, serverId: string): Promise<McpConnection | null> {
    const [row] = await this.query<ConnectionRow>(
      `WITH failed AS (
         UPDATE mcp_connections SET state = 'failed', sealed_tokens = NULL, refreshing_until = NULL, updated_at = now()
         WHERE user_id = $1 AND server_id = $2 AND kind = 'oauth' RETURNING ${COLUMNS}
       ) SELECT * FROM failed`,
      [userId, serverId],
    );
    return row ? toConnection(row) : null;
  }

  async remove(userId: string, serverId: string): Promise<McpConnection | null> {
    const [row] = await this.query<ConnectionRow>(
      // In a CTE: the driver answers a bare DELETE .. RETURNING with [rows, count].
      `WITH gone AS (DELETE FROM mcp_connections WHERE user_id = $1 AND server_id = $2 RETURNING ${COLUMNS}) SELECT * FROM gone`,
      [userId, serverId],
    );
    return row ? toConnection(row) : null;
  }

  async removeAllOf(serverId: string): Promise<McpConnection[]> {
    const rows = await this.query<ConnectionRow>(
      `WITH gone AS (DELETE FROM mcp_connections WHERE server_id = $1 RETURNING ${COLUMNS}) SELECT * FROM gone ORDER BY created_at, id`,
      [serverId],
    );
    return rows.map(toConnection);
  }

  private async row(userId: string, serverId: string): Promise<ConnectionRow | null> {
    const [row] = await this.query<ConnectionRow>(`SELECT ${COLUMNS} FROM mcp_connections WHERE user_id = $1 AND server_id = $2`, [
      userId,
      serverId,
    ]);
    return row ?? null;
  }

  private query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return databaseCall(this.manager.query<T[]>(sql, params));
  }
}

function toConnection(row: ConnectionRow): McpConnection {
  return {
    id: row.id,
    userId: row.user_id,
    serverId: row.server_id,
    kind: row.kind,
    state: row.state,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    account: row.account,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
