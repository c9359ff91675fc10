import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every replica caches validated keys; this trigger tells all of them, at
 * commit, when a key is revoked or deleted, whichever path changed the row.
 */
export class NotifyKeyRevocations1763900000003 implements MigrationInterface {
  name = 'NotifyKeyRevocations1763900000003';

  async up(queryRunner: QueryRunner): Promise<void> {
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

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_deleted ON api_keys');
    await queryRunner.query('DROP TRIGGER api_keys_revoked ON api_keys');
    await queryRunner.query('DROP FUNCTION keygate_notify_key_revoked()');
  }
}
