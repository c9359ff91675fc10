import { DataSource } from 'typeorm';
import {
  ClientSessionView,
  HeldUpstreamSession,
  TakenUpstreamSession,
  UpstreamSessionStore,
} from '../../../application/ports/upstream-session-store.port';

interface ViewRow {
  client_capabilities: Record<string, unknown>;
  session_log_level: string | null;
  user_id: string;
  upstream_session_id: string | null;
  protocol_version: string | null;
  server_capabilities: Record<string, unknown> | null;
  held_client_capabilities: Record<string, unknown> | null;
  held_log_level: string | null;
}

/**
 * Wakes the replicas caching a client session's view (cached-upstream-session-store.ts)
 * after a change to it; payload: the client session's id. Sent by the statement that changes it.
 */
export const UPSTREAM_SESSIONS_CHANNEL = 'keygate_mcp_upstream_sessions';

/** Upstream sessions in mcp_upstream_sessions (migration 1763900000011), read with their client session in one statement. */
export class PostgresUpstreamSessionStore implements UpstreamSessionStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(clientSessionId: string, serverId: string): Promise<ClientSessionView | null> {
    const rows = await this.dataSource.query<ViewRow[]>(
      `SELECT s.client_capabilities, s.log_level AS session_log_level, s.user_id::text AS user_id,
              u.upstream_session_id, u.protocol_version, u.server_capabilities,
              u.client_capabilities AS held_client_capabilities, u.log_level AS held_log_level
         FROM mcp_sessions s
         LEFT JOIN mcp_upstream_sessions u ON u.client_session_id = s.id AND u.server_id = $2
        WHERE s.id = $1 AND s.ended_at IS NULL`,
      [clientSessionId, serverId],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    const held: HeldUpstreamSession | null =
      row.upstream_session_id === null
        ? null
        : {
            upstreamSessionId: row.upstream_session_id,
            protocolVersion: row.protocol_version!,
            serverCapabilities: row.server_capabilities ?? {},
            clientCapabilities: row.held_client_capabilities ?? {},
            logLevel: row.held_log_level,
          };
    return { clientCapabilities: row.client_capabilities ?? {}, logLevel: row.session_log_level, userId: row.user_id, held };
  }

  async save(clientSessionId: string, serverId: string, userId: string, held: HeldUpstreamSession): Promise<boolean> {
    // A client session that ended meanwhile stores nothing (the INSERT … SELECT finds no live row).
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO mcp_upstream_sessions (client_session_id, server_id, user_id, upstream_session_id, protocol_version, server_capabilities, client_capabilities, log_level)
       SELECT id, $2, $3, $4, $5, $6, $7, $8 FROM mcp_sessions WHERE id = $1 AND ended_at IS NULL
       ON CONFLICT (client_session_id, server_id) DO NOTHING
       RETURNING 1 AS saved, pg_notify($9, $1::text)`,
      [
        clientSessionId,
        serverId,
        userId,
        held.upstreamSessionId,
        held.protocolVersion,
        JSON.stringify(held.serverCapabilities),
        JSON.stringify(held.clientCapabilities),
        held.logLevel,
        UPSTREAM_SESSIONS_CHANNEL,
      ],
    );
    return rows.length > 0;
  }

  async forget(clientSessionId: string, serverId: string, upstreamSessionId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM mcp_upstream_sessions WHERE client_session_id = $1 AND server_id = $2 AND upstream_session_id = $3
       RETURNING pg_notify($4, $1::text)`,
      [clientSessionId, serverId, upstreamSessionId, UPSTREAM_SESSIONS_CHANNEL],
    );
  }

  async setHeldLogLevel(clientSessionId: string, serverId: string, level: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE mcp_upstream_sessions SET log_level = $3 WHERE client_session_id = $1 AND server_id = $2 RETURNING pg_notify($4, $1::text)',
      [clientSessionId, serverId, level, UPSTREAM_SESSIONS_CHANNEL],
    );
  }

  async setClientLogLevel(clientSessionId: string, level: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      'UPDATE mcp_sessions SET log_level = $2 WHERE id = $1 AND ended_at IS NULL RETURNING pg_notify($3, $1::text)',
      [clientSessionId, level, UPSTREAM_SESSIONS_CHANNEL],
    );
    return count > 0;
  }

  async take(clientSessionId: string): Promise<TakenUpstreamSession[]> {
    const rows = await this.dataSource.query<
      [{ server_id: string; user_id: string; upstream_session_id: string; protocol_version: string }[], number]
    >(
      `DELETE FROM mcp_upstream_sessions WHERE client_session_id = $1
       RETURNING server_id::text AS server_id, user_id::text AS user_id, upstream_session_id, protocol_version, pg_notify($2, $1::text)`,
      [clientSessionId, UPSTREAM_SESSIONS_CHANNEL],
    );
    return rows[0].map((row) => ({
      serverId: row.server_id,
      userId: row.user_id,
      upstreamSessionId: row.upstream_session_id,
      protocolVersion: row.protocol_version,
    }));
  }
}
