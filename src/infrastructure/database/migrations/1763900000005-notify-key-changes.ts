import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replicas cache whole key rows (scopes and expiry included), so every change
 * to a row must reach them, not only revocations: any UPDATE that changes
 * something besides last_used_at, any DELETE, and TRUNCATE (payload `*`:
 * forget every key). last_used_at is left out because the coalescer writes
 * it every second and the caches would be flushed as often.
 *
 * The channel keeps its old name, keygate_key_revoked: replicas of the
 * previous release, still running during a rolling deploy, listen on it and
 * must keep hearing revocations.
 */
export class NotifyKeyChanges1763900000005 implements MigrationInterface {
  name = 'NotifyKeyChanges1763900000005';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('keygate_key_revoked', '*');
        ELSE
          PERFORM pg_notify('keygate_key_revoked', OLD.id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query('DROP TRIGGER api_keys_revoked ON api_keys');
    await queryRunner.query('DROP TRIGGER api_keys_deleted ON api_keys');
    await queryRunner.query('DROP FUNCTION keygate_notify_key_revoked()');
    // Compared as JSON so that a column added later is covered without touching this trigger.
    await queryRunner.query(`
      CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys
      FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
      EXECUTE FUNCTION keygate_notify_key_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION keygate_notify_key_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_notify_key_changed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_truncated ON api_keys');
    await queryRunner.query('DROP TRIGGER api_keys_deleted ON api_keys');
    await queryRunner.query('DROP TRIGGER api_keys_changed ON api_keys');
    await queryRunner.query('DROP FUNCTION keygate_notify_key_changed()');
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('keygate_key_revoked', OLD.id::text);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
      FOR EACH ROW WHEN (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at)
      EXECUTE FUNCTION keygate_notify_key_revoked()`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION keygate_notify_key_revoked()`);
  }
}
