import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replicas cache each user's MCP server list; a TRUNCATE of resource_records
 * fires no row trigger, so it sends `*` (forget every list), as api_keys does.
 */
export class NotifyMcpServersTruncated1763900000006 implements MigrationInterface {
  name = 'NotifyMcpServersTruncated1763900000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_mcp_servers_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('keygate_mcp_servers_changed', '*');
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER resource_records_truncated AFTER TRUNCATE ON resource_records
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_notify_mcp_servers_truncated()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER resource_records_truncated ON resource_records');
    await queryRunner.query('DROP FUNCTION keygate_notify_mcp_servers_truncated()');
  }
}
