import { MigrationInterface, QueryRunner } from 'typeorm';

/** The records behind the built-in MCP tools; subresource items point at their parent. */
export class CreateResourceRecords1763900000002 implements MigrationInterface {
  name = 'CreateResourceRecords1763900000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE resource_records (
        id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id     uuid        NOT NULL,
        resource    varchar(32) NOT NULL,
        parent_id   uuid        NULL REFERENCES resource_records (id) ON DELETE CASCADE,
        subresource varchar(32) NULL,
        data        jsonb       NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now(),
        CHECK ((parent_id IS NULL) = (subresource IS NULL)),
        CHECK (jsonb_typeof(data) = 'object')
      )`);
    // Every query names the owner and a location: a resource's top level or one parent's subresource.
    await queryRunner.query(
      'CREATE INDEX resource_records_location_idx ON resource_records (user_id, resource, parent_id, subresource, created_at)',
    );
    await queryRunner.query('CREATE INDEX resource_records_parent_idx ON resource_records (parent_id)');
    // An upstream MCP server's name is its tool namespace, so it is unique per user.
    await queryRunner.query(`
      CREATE UNIQUE INDEX resource_records_mcp_server_name_uq ON resource_records (user_id, (data->>'name'))
      WHERE resource = 'mcp_servers' AND parent_id IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE resource_records');
  }
}
