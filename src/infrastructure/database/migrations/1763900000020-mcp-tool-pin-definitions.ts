import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The approved definition of each pinned upstream tool, as its canonical
 * text (the text whose SHA-256 is `sha256`; issue 27): what tools/list shows
 * of a per-user server to a user who has no connection to it, with no
 * upstream request. Written only by a listing that served the approved
 * definition, cleared when an approval moves `sha256`, so it always hashes
 * to `sha256`; bounded by the upstream limits a listing is read within.
 * Pins made before this migration get theirs at their next listing.
 */
export class McpToolPinDefinitions1763900000020 implements MigrationInterface {
  name = 'McpToolPinDefinitions1763900000020';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_tool_pins ADD COLUMN definition_text text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_tool_pins DROP COLUMN definition_text');
  }
}
