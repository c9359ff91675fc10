import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth clients keygate registered dynamically at upstream authorization
 * servers (issue 27): one per issuer and redirect URI, reused by every user's
 * connection instead of a registration per connect. The registration (client
 * secret when the server issued one; the id is public) is sealed by the service
 * (SecretBox under SECRETS_KEY, bound to issuer and redirect URI).
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
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_client_registrations');
  }
}
