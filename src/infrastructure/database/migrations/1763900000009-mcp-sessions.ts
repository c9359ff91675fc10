import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP sessions on /mcp (issue 14), shared by every replica.
 *
 * - mcp_sessions: one row per session. Only the SHA-256 of the id the client
 *   holds is stored; `id` is the internal name replicas use in NOTIFY
 *   payloads and the event log, never shown to anyone. `tools_digest` is the
 *   digest of the tools the session saw last, so a change is announced once,
 *   by whichever replica's conditional UPDATE wins. `stream_replica` claims
 *   the one standalone GET stream (expires when not refreshed).
 * - mcp_session_events: what the GET stream sends, per-session seq (the SSE
 *   event id), capped and aged out by the purge.
 * - mcp_session_bus: client messages too large for a NOTIFY payload.
 *
 * Revoking a key (a roll without overlap revokes too) ends its sessions in
 * the same transaction (deleting it deletes them, a TRUNCATE ends them all), and ending a session NOTIFYs every replica, which
 * closes its stream.
 */
export class McpSessions1763900000009 implements MigrationInterface {
  name = 'McpSessions1763900000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_sessions (
        id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash          char(64) NOT NULL,
        key_id              uuid NOT NULL,
        user_id             uuid NOT NULL,
        protocol_version    varchar(32) NOT NULL,
        client_capabilities jsonb NOT NULL,
        client_info         jsonb NOT NULL,
        created_at          timestamptz NOT NULL,
        last_seen_at        timestamptz NOT NULL,
        ended_at            timestamptz NULL,
        tools_digest        char(64) NULL,
        event_seq           bigint NOT NULL DEFAULT 0,
        stream_replica      text NULL,
        stream_seen_at      timestamptz NULL,
        CHECK (octet_length(client_capabilities::text) <= 16384 AND octet_length(client_info::text) <= 16384)
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX mcp_sessions_token_hash_uq ON mcp_sessions (token_hash)');
    await queryRunner.query('CREATE INDEX mcp_sessions_live_by_key_idx ON mcp_sessions (key_id, last_seen_at) WHERE ended_at IS NULL');
    await queryRunner.query('CREATE INDEX mcp_sessions_live_by_user_idx ON mcp_sessions (user_id) WHERE ended_at IS NULL');
    await queryRunner.query('CREATE INDEX mcp_sessions_ended_idx ON mcp_sessions (ended_at) WHERE ended_at IS NOT NULL');
    await queryRunner.query(`
      CREATE TABLE mcp_session_events (
        session_id uuid NOT NULL REFERENCES mcp_sessions(id) ON DELETE CASCADE,
        seq        bigint NOT NULL,
        message    text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`);
    await queryRunner.query('CREATE INDEX mcp_session_events_created_idx ON mcp_session_events (created_at)');
    await queryRunner.query(`
      CREATE TABLE mcp_session_bus (
        id         bigserial PRIMARY KEY,
        session_id uuid NOT NULL,
        payload    text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_mcp_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('keygate_mcp_session_ended', '*');
        ELSIF TG_OP = 'DELETE' THEN
          IF OLD.ended_at IS NULL THEN PERFORM pg_notify('keygate_mcp_session_ended', OLD.id::text); END IF;
        ELSE
          PERFORM pg_notify('keygate_mcp_session_ended', NEW.id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER mcp_sessions_ended AFTER UPDATE OF ended_at ON mcp_sessions
      FOR EACH ROW WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL)
      EXECUTE FUNCTION keygate_notify_mcp_session_ended()`);
    await queryRunner.query(`
      CREATE TRIGGER mcp_sessions_deleted AFTER DELETE ON mcp_sessions
      FOR EACH ROW EXECUTE FUNCTION keygate_notify_mcp_session_ended()`);
    await queryRunner.query(`
      CREATE TRIGGER mcp_sessions_truncated AFTER TRUNCATE ON mcp_sessions
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_notify_mcp_session_ended()`);
    // In the revoking transaction: no replica can serve a session of a revoked key after the commit.
    await queryRunner.query(`
      CREATE FUNCTION keygate_end_sessions_of_revoked_key() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE mcp_sessions SET ended_at = NEW.revoked_at WHERE key_id = NEW.id AND ended_at IS NULL;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_revoked_end_sessions AFTER UPDATE OF revoked_at ON api_keys
      FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
      EXECUTE FUNCTION keygate_end_sessions_of_revoked_key()`);
    // Not a foreign key, which would forbid TRUNCATE api_keys: a deleted key's sessions go with it, a truncate ends them all.
    await queryRunner.query(`
      CREATE FUNCTION keygate_end_sessions_of_deleted_keys() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE mcp_sessions SET ended_at = now() WHERE ended_at IS NULL;
        ELSE
          DELETE FROM mcp_sessions WHERE key_id = OLD.id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_deleted_end_sessions AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION keygate_end_sessions_of_deleted_keys()`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_truncated_end_sessions AFTER TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_end_sessions_of_deleted_keys()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_truncated_end_sessions ON api_keys');
    await queryRunner.query('DROP TRIGGER api_keys_deleted_end_sessions ON api_keys');
    await queryRunner.query('DROP FUNCTION keygate_end_sessions_of_deleted_keys()');
    await queryRunner.query('DROP TRIGGER api_keys_revoked_end_sessions ON api_keys');
    await queryRunner.query('DROP FUNCTION keygate_end_sessions_of_revoked_key()');
    await queryRunner.query('DROP TABLE mcp_session_bus');
    await queryRunner.query('DROP TABLE mcp_session_events');
    await queryRunner.query('DROP TABLE mcp_sessions');
    await queryRunner.query('DROP FUNCTION keygate_notify_mcp_session_ended()');
  }
}
