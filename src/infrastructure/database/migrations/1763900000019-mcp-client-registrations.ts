import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth clients keygate registered dynamically at upstream authorization
 * servers (issue 27): one per issuer and redirect URI, reused by every user's
 * connection instead of a registration per connect. The registration (client
 * secret when the server issued one; the id is public) is sealed by the service
 * (SecretBox under SECRETS_KEY, bound to issuer and redirect URI). And the
 * account a connection is for, for the console's "Connected as …".
 */
export class McpClientRegistrations1763900000019 implements MigrationInterface {
  name = 'McpClientRegistrations1763900000019';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_client_registrations (
        issuer              text        NOT NULL,
        redirect_uri        text        NOT NULL,
        client_id           text        NOT NULL,
        sealed_registration text        NOT NULL,
        created_at          timestamptz NOT NULL,
        PRIMARY KEY (issuer, redirect_uri)
      )`);
    // Who the user is at the upstream, as its token answer says (shown as "Connected as …"; not a secret, never checked).
    await queryRunner.query('ALTER TABLE mcp_connections ADD COLUMN account text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_connections DROP COLUMN account');
    await queryRunner.query('DROP TABLE mcp_client_registrations');
  }
}
