import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate limits and quotas of keys (issue 13).
 *
 * The configuration lives on api_keys, so the key-change trigger (migration
 * 1763900000005, which compares whole rows) evicts every replica's cached key
 * when a limit changes. budget_id names what the limits are counted against:
 * NULL is the key's own id, a roll's new key takes its predecessor's.
 *
 * The moving parts live apart, so the frequent lease writes never touch
 * api_keys (whose trigger would flush every cache on each one):
 * - key_quotas: one balance per budget. `refilled_at` is the start of the
 *   period whose refill (or PATCH) set it; `generation` moves on each PATCH
 *   and refill, and a trigger tells every replica, which drops the credits it
 *   holds of that budget.
 * - key_quota_leases: the credits each replica holds unspent, reported once
 *   a second, so the key list can add them to the stored balance.
 * - key_rate_windows: per budget and fixed window, how many requests replicas
 *   have been handed shares of (may pass the limit; what is over it was never
 *   granted).
 */
export class UsageLimits1763900000008 implements MigrationInterface {
  name = 'UsageLimits1763900000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN budget_id uuid NULL,
        ADD COLUMN rate_limit_limit integer NULL CHECK (rate_limit_limit BETWEEN 1 AND 1000000),
        ADD COLUMN rate_limit_window_seconds integer NULL CHECK (rate_limit_window_seconds BETWEEN 1 AND 86400),
        ADD COLUMN has_quota boolean NOT NULL DEFAULT false,
        ADD COLUMN quota_refill_amount bigint NULL CHECK (quota_refill_amount BETWEEN 1 AND 1000000000),
        ADD COLUMN quota_refill_interval text NULL CHECK (quota_refill_interval IN ('hour', 'day', 'month')),
        ADD CONSTRAINT api_keys_rate_limit_whole CHECK ((rate_limit_limit IS NULL) = (rate_limit_window_seconds IS NULL)),
        ADD CONSTRAINT api_keys_quota_refill_whole CHECK ((quota_refill_amount IS NULL) = (quota_refill_interval IS NULL))`);
    // One sequence for every generation, so a balance removed and set again never reuses one a replica may still hold.
    await queryRunner.query('CREATE SEQUENCE key_quota_generations');
    await queryRunner.query(`
      CREATE TABLE key_quotas (
        budget_id uuid PRIMARY KEY,
        remaining bigint NOT NULL CHECK (remaining >= 0),
        refill_amount bigint NULL,
        refill_interval text NULL CHECK (refill_interval IN ('hour', 'day', 'month')),
        refilled_at timestamptz NOT NULL,
        generation bigint NOT NULL DEFAULT nextval('key_quota_generations')
      )`);
    await queryRunner.query(`
      CREATE TABLE key_quota_leases (
        replica_id text NOT NULL,
        budget_id uuid NOT NULL,
        generation bigint NOT NULL,
        held bigint NOT NULL CHECK (held >= 0),
        reported_at timestamptz NOT NULL,
        PRIMARY KEY (budget_id, replica_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE key_rate_windows (
        budget_id uuid NOT NULL,
        window_seconds integer NOT NULL,
        window_start bigint NOT NULL,
        granted bigint NOT NULL,
        PRIMARY KEY (budget_id, window_seconds, window_start)
      )`);
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_quota_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('keygate_quota_changed', '*');
        ELSE
          PERFORM pg_notify('keygate_quota_changed', OLD.budget_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER key_quotas_changed AFTER UPDATE ON key_quotas
      FOR EACH ROW WHEN (OLD.generation IS DISTINCT FROM NEW.generation)
      EXECUTE FUNCTION keygate_notify_quota_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER key_quotas_deleted AFTER DELETE ON key_quotas
      FOR EACH ROW EXECUTE FUNCTION keygate_notify_quota_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER key_quotas_truncated AFTER TRUNCATE ON key_quotas
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_notify_quota_changed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE key_rate_windows');
    await queryRunner.query('DROP TABLE key_quota_leases');
    await queryRunner.query('DROP TABLE key_quotas');
    await queryRunner.query('DROP SEQUENCE key_quota_generations');
    await queryRunner.query('DROP FUNCTION keygate_notify_quota_changed()');
    await queryRunner.query(`
      ALTER TABLE api_keys
        DROP COLUMN budget_id, DROP COLUMN rate_limit_limit, DROP COLUMN rate_limit_window_seconds,
        DROP COLUMN has_quota, DROP COLUMN quota_refill_amount, DROP COLUMN quota_refill_interval`);
  }
}
