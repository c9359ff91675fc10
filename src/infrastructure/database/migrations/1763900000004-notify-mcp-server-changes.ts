import { MigrationInterface, QueryRunner } from 'typeorm';

/** Replicas cache each user's MCP server list for tools/list; this tells them when it changes. */
export class NotifyMcpServerChanges1763900000004 implements MigrationInterface {
  name = 'NotifyMcpServerChanges1763900000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_mcp_servers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.resource = 'mcp_servers' THEN
          PERFORM pg_notify('keygate_mcp_servers_changed', OLD.user_id::text);
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.resource = 'mcp_servers' THEN
          PERFORM pg_notify('keygate_mcp_servers_changed', NEW.user_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER resource_records_mcp_servers_changed AFTER INSERT OR UPDATE OR DELETE ON resource_records
      FOR EACH ROW EXECUTE FUNCTION keygate_notify_mcp_servers_changed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER resource_records_mcp_servers_changed ON resource_records');
    await queryRunner.query('DROP FUNCTION keygate_notify_mcp_servers_changed()');
  }
}
