import { MigrationInterface, QueryRunner } from 'typeorm';

const LEVELS = ['tool_usage_minutes', 'tool_usage_hours', 'tool_usage_days'];

/**
 * Per-key tool usage (issue 29): counts and latency per (bucket, user, key,
 * tool, outcome) in minute, hour and day tables, written by each replica's
 * flusher as additive upserts, so sums stay exact across replicas. The
 * latency histogram is a bigint[] over fixed bounds (src/domain/usage);
 * keygate_add_counts adds two element-wise, keygate_sum_counts sums a group. `key_id` is null for calls made
 * with a user's OAuth access token, and not a foreign key (as
 * tool_call_approvals' is not), so TRUNCATE api_keys stays possible.
 */
export class ToolUsage1763900000023 implements MigrationInterface {
  name = 'ToolUsage1763900000023';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION keygate_add_counts(a bigint[], b bigint[]) RETURNS bigint[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i), '{}')
        FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)
      $$`);
    // Sums the histograms of the rows a read groups together.
    await queryRunner.query('CREATE AGGREGATE keygate_sum_counts(bigint[]) (SFUNC = keygate_add_counts, STYPE = bigint[])');
    for (const table of LEVELS) {
      await queryRunner.query(`
        CREATE TABLE ${table} (
          bucket_start   timestamptz      NOT NULL,
          user_id        uuid             NOT NULL,
          key_id         uuid,
          tool           text             NOT NULL,
          outcome        text             NOT NULL CHECK (outcome IN ('called', 'denied', 'rate_limited', 'quota_exhausted', 'upstream_error')),
          count          bigint           NOT NULL,
          latency_sum_ms double precision NOT NULL,
          histogram      bigint[]         NOT NULL,
          CONSTRAINT ${table}_bucket_key UNIQUE NULLS NOT DISTINCT (bucket_start, user_id, key_id, tool, outcome)
        )`);
      // Reads name a user (and often a key) and a range; retention deletes by bucket_start.
      await queryRunner.query(`CREATE INDEX ${table}_user_idx ON ${table} (user_id, bucket_start)`);
      await queryRunner.query(`CREATE INDEX ${table}_key_idx ON ${table} (key_id, bucket_start)`);
      await queryRunner.query(`CREATE INDEX ${table}_start_idx ON ${table} (bucket_start)`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of LEVELS) await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query('DROP AGGREGATE keygate_sum_counts(bigint[])');
    await queryRunner.query('DROP FUNCTION keygate_add_counts(bigint[], bigint[])');
  }
}
