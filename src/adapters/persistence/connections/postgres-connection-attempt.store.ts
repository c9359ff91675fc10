import { createHash } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { ConnectionAttempt, ConnectionAttemptStore } from '../../../application/ports/connection-attempt-store.port';
import { PendingAuthorization } from '../../../application/ports/upstream-authorization.port';
import { SecretBox } from '../../../application/ports/secret-box.port';
import { SecretBoxError } from '../../crypto/aes-gcm-secret-box';
import { databaseCall } from '../database-unavailable';

interface AttemptRow {
  state_hash: string;
  user_id: string;
  server_id: string;
  sealed_pending: string;
  expires_at: Date;
}

/**
 * ConnectionAttemptStore on PostgreSQL (migration 1763900000018): a row per
 * attempt under a SHA-256 of its state, the pending authorization sealed and
 * bound to that hash, user and server. Taking deletes, so a state works once
 * even when two callbacks race; saving sweeps the expired ones.
 */
export class PostgresConnectionAttemptStore implements ConnectionAttemptStore {
  constructor(
    private readonly manager: EntityManager,
    private readonly box: SecretBox,
  ) {}

  async save(attempt: ConnectionAttempt): Promise<void> {
    const hash = stateHash(attempt.pending.state);
    const sealed = this.box.encrypt(JSON.stringify(attempt.pending), contextOf(hash, attempt.userId, attempt.serverId));
    await this.query('DELETE FROM mcp_connection_attempts WHERE expires_at < now()', []);
    await this.query(
      'INSERT INTO mcp_connection_attempts (state_hash, user_id, server_id, sealed_pending, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [hash, attempt.userId, attempt.serverId, sealed, attempt.expiresAt],
    );
  }

  async take(state: string, userId: string, now: Date): Promise<ConnectionAttempt | null> {
    const [row] = await this.query<AttemptRow>(
      `WITH taken AS (DELETE FROM mcp_connection_attempts WHERE state_hash = $1 AND user_id = $2 AND expires_at > $3 RETURNING *)
       SELECT * FROM taken`,
      [stateHash(state), userId, now],
    );
    if (!row) return null;
    try {
      const pending = JSON.parse(
        this.box.decrypt(row.sealed_pending, contextOf(row.state_hash, row.user_id, row.server_id)),
      ) as PendingAuthorization;
      return { userId: row.user_id, serverId: row.server_id, pending, expiresAt: row.expires_at };
    } catch (error) {
      // Sealed under a key this service no longer has: the user starts again.
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
  }

  private query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return databaseCall(this.manager.query<T[]>(sql, params));
  }
}

function stateHash(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

function contextOf(hash: string, userId: string, serverId: string): string {
  return JSON.stringify(['mcp_connection_attempts', hash, userId, serverId]);
}
