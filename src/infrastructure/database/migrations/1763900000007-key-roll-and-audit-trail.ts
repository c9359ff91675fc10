import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Key roll (api_keys.replaced_by) and the audit trail.
 *
 * audit_events is append-only: a trigger refuses UPDATE, DELETE and TRUNCATE
 * unless the retention function below is the one deleting. Each event's hash
 * covers the previous event's hash, so an edit, a removal or a reordering
 * shows. audit_chain holds the chain's head (the last seq and hash, locked by
 * every writer, which is what puts seq in commit order) and its anchor (the
 * last pruned event's seq and hash, where verification starts).
 */
export class KeyRollAndAuditTrail1763900000007 implements MigrationInterface {
  name = 'KeyRollAndAuditTrail1763900000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN replaced_by uuid NULL REFERENCES api_keys(id)');
    await queryRunner.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY,
        seq bigint NOT NULL UNIQUE,
        occurred_at timestamptz NOT NULL,
        action text NOT NULL,
        actor_type text NOT NULL,
        actor_id text NULL,
        user_id uuid NULL,
        key_id uuid NULL,
        target_type text NOT NULL,
        target_id text NULL,
        request_id text NULL,
        ip text NULL,
        details jsonb NOT NULL,
        hash char(64) NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX audit_events_user_seq ON audit_events (user_id, seq)');
    await queryRunner.query('CREATE INDEX audit_events_key_seq ON audit_events (key_id, seq)');
    await queryRunner.query('CREATE INDEX audit_events_action_seq ON audit_events (action, seq)');
    await queryRunner.query('CREATE INDEX audit_events_occurred_at ON audit_events (occurred_at)');
    await queryRunner.query(`
      CREATE TABLE audit_chain (
        id smallint PRIMARY KEY CHECK (id = 1),
        head_seq bigint NOT NULL,
        head_hash char(64) NOT NULL,
        anchor_seq bigint NOT NULL,
        anchor_hash char(64) NOT NULL
      )`);
    const zero = '0'.repeat(64);
    await queryRunner.query(`INSERT INTO audit_chain VALUES (1, 0, '${zero}', 0, '${zero}')`);
    await queryRunner.query(`
      CREATE FUNCTION keygate_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'UPDATE' AND current_setting('keygate.audit_retention', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION keygate_audit_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_audit_append_only()`);
    // Removes the oldest events, those before the first one at or after the cutoff,
    // and moves the anchor to the last removed one so the rest still verifies.
    await queryRunner.query(`
      CREATE FUNCTION keygate_audit_prune(cutoff timestamptz) RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        last_seq bigint;
        last_hash char(64);
        removed bigint;
      BEGIN
        PERFORM 1 FROM audit_chain WHERE id = 1 FOR UPDATE;
        SELECT COALESCE((SELECT min(seq) FROM audit_events WHERE occurred_at >= cutoff) - 1,
                        (SELECT max(seq) FROM audit_events))
          INTO last_seq;
        IF last_seq IS NULL THEN RETURN 0; END IF;
        SELECT hash INTO last_hash FROM audit_events WHERE seq = last_seq;
        IF last_hash IS NULL THEN RETURN 0; END IF;
        PERFORM set_config('keygate.audit_retention', 'on', true);
        DELETE FROM audit_events WHERE seq <= last_seq;
        GET DIAGNOSTICS removed = ROW_COUNT;
        PERFORM set_config('keygate.audit_retention', 'off', true);
        UPDATE audit_chain SET anchor_seq = last_seq, anchor_hash = last_hash WHERE id = 1;
        RETURN removed;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION keygate_audit_prune(timestamptz)');
    await queryRunner.query('DROP TABLE audit_chain');
    await queryRunner.query('DROP TABLE audit_events');
    await queryRunner.query('DROP FUNCTION keygate_audit_append_only()');
    await queryRunner.query('ALTER TABLE api_keys DROP COLUMN replaced_by');
  }
}
