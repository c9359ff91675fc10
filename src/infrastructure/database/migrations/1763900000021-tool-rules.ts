import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in tools' rules (issue 28): one row per tool that has any, its
 * ordered rules as the API took them (checked at write time, compiled by
 * each replica once per text). A server record's rules live in its data.
 * A change notifies the replicas' copies (keygate_tool_rules_changed).
 */
export class ToolRules1763900000021 implements MigrationInterface {
  name = 'ToolRules1763900000021';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tool_rules (
        tool       text        PRIMARY KEY,
        rules      jsonb       NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // Replicas keep a copy of the table for every call: any change, from any replica or straight in SQL, drops it.
    await queryRunner.query(`
      CREATE FUNCTION keygate_notify_tool_rules_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('keygate_tool_rules_changed', 'all');
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER tool_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tool_rules
      FOR EACH STATEMENT EXECUTE FUNCTION keygate_notify_tool_rules_changed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER tool_rules_changed ON tool_rules');
    await queryRunner.query('DROP FUNCTION keygate_notify_tool_rules_changed()');
    await queryRunner.query('DROP TABLE tool_rules');
  }
}
