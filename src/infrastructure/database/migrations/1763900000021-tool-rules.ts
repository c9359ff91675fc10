import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in tools' rules (issue 28): one row per tool that has any, its
 * ordered rules as the API took them (checked at write time, compiled by
 * each replica once per text). A server record's rules live in its data.
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
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE tool_rules');
  }
}
