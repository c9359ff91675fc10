import { DataSource } from 'typeorm';
import { McpSessionRepository, NewMcpSession, SessionKey } from '../../../application/ports/mcp-session-repository.port';
import { McpSession } from '../../../domain/mcp-session';
import { ScopeSet } from '../../../domain/scope';
import { queryNamed } from '../named-statement';

interface SessionRow {
  id: string;
  key_id: string;
  user_id: string;
  protocol_version: string;
  created_at: Date;
  last_seen_at: Date;
  ended_at: Date | null;
  expires_at: Date | null;
  url_elicitation: boolean | null;
}

// url_elicitation: read with the session, so a call that needs a connection knows how to ask for it without another read.
const COLUMNS = `id, key_id, user_id, protocol_version, created_at, last_seen_at, ended_at, expires_at,
  jsonb_typeof(client_capabilities->'elicitation'->'url') = 'object' AS url_elicitation`;

// Every request of a session reads it: a named statement, planned once per connection.
const FIND_BY_HASH = { name: 'mcp_session_by_hash', text: `SELECT ${COLUMNS} FROM mcp_sessions WHERE token_hash = $1` };

/** Sessions as rows of mcp_sessions (migration 1763900000009), shared by every replica. */
export class PostgresMcpSessionRepository implements McpSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async open(session: NewMcpSession, maxPerKey: number, idleCutoff: Date): Promise<McpSession> {
    return this.dataSource.transaction(async (manager) => {
      // One opener per key at a time, so two concurrent initializes cannot both pass the limit.
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [session.keyId]);
      await manager.query(
        `UPDATE mcp_sessions SET ended_at = $2 WHERE id IN (
           SELECT id FROM mcp_sessions WHERE key_id = $1 AND ended_at IS NULL AND last_seen_at > $3
           ORDER BY last_seen_at DESC, created_at DESC OFFSET $4)`,
        [session.keyId, session.now, idleCutoff, maxPerKey - 1],
      );
      const rows = await manager.query<SessionRow[]>(
        `INSERT INTO mcp_sessions (token_hash, key_id, user_id, protocol_version, client_capabilities, client_info, created_at, last_seen_at, tools_digest, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          session.tokenHash,
          session.keyId,
          session.userId,
          session.protocolVersion,
          JSON.stringify(session.clientCapabilities),
          JSON.stringify(session.clientInfo),
          session.now,
          session.toolsDigest,
          session.expiresAt ?? null,
        ],
      );
      return toSession(rows[0]);
    });
  }

  async findByTokenHash(tokenHash: string): Promise<McpSession | null> {
    const rows = await queryNamed<SessionRow>(this.dataSource.manager, FIND_BY_HASH, [tokenHash]);
    return rows.length === 0 ? null : toSession(rows[0]);
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.dataSource.query('UPDATE mcp_sessions SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL AND last_seen_at < $2', [
      id,
      at,
    ]);
  }

  async extend(id: string, expiresAt: Date): Promise<void> {
    await this.dataSource.query('UPDATE mcp_sessions SET expires_at = $2 WHERE id = $1 AND ended_at IS NULL AND expires_at < $2', [
      id,
      expiresAt,
    ]);
  }

  async end(id: string, at: Date): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      'UPDATE mcp_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL',
      [id, at],
    );
    return count > 0;
  }

  async keysWithLiveSessions(filter: { keyId: string } | { userId: string }, idleCutoff: Date): Promise<SessionKey[]> {
    const [column, value] = 'keyId' in filter ? ['k.id', filter.keyId] : ['k.user_id', filter.userId];
    const rows = await this.dataSource.query<{ id: string; user_id: string; scopes: string[] }[]>(
      `SELECT k.id, k.user_id, k.scopes FROM api_keys k
       WHERE ${column} = $1 AND k.revoked_at IS NULL
         AND EXISTS (SELECT 1 FROM mcp_sessions s WHERE s.key_id = k.id AND s.ended_at IS NULL AND s.last_seen_at > $2)`,
      [value, idleCutoff],
    );
    return rows.map((r) => ({ keyId: r.id, userId: r.user_id, scopes: ScopeSet.fromTrusted(r.scopes) }));
  }

  async recordToolsDigest(keyId: string, digest: string, idleCutoff: Date): Promise<string[]> {
    const [rows] = await this.dataSource.query<[{ id: string }[], number]>(
      `UPDATE mcp_sessions SET tools_digest = $2
       WHERE key_id = $1 AND ended_at IS NULL AND last_seen_at > $3 AND tools_digest IS DISTINCT FROM $2 RETURNING id`,
      [keyId, digest, idleCutoff],
    );
    return rows.map((r) => r.id);
  }
}

function toSession(row: SessionRow): McpSession {
  return {
    id: row.id,
    keyId: row.key_id,
    userId: row.user_id,
    protocolVersion: row.protocol_version,
    createdAt: new Date(row.created_at),
    lastSeenAt: new Date(row.last_seen_at),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    urlElicitation: row.url_elicitation === true,
  };
}
