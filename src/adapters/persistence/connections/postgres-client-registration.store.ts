import { EntityManager } from 'typeorm';
import { ClientRegistrationStore } from '../../../application/ports/client-registration-store.port';
import { SecretBox } from '../../../application/ports/secret-box.port';
import { ClientRegistration } from '../../../application/ports/upstream-authorization.port';
import { SecretBoxError } from '../../crypto/aes-gcm-secret-box';
import { databaseCall } from '../database-unavailable';

/**
 * ClientRegistrationStore on PostgreSQL (migration 1763900000019): the
 * registration sealed whole, bound to its issuer and redirect URI, so a row
 * copied under another issuer does not open. One sealed under a key the
 * service no longer has is as good as none: the next connect registers again.
 */
export class PostgresClientRegistrationStore implements ClientRegistrationStore {
  constructor(
    private readonly manager: EntityManager,
    private readonly box: SecretBox,
  ) {}

  async find(issuer: string, redirectUri: string, notBefore: Date): Promise<ClientRegistration | null> {
    const [row] = await this.query<{ sealed_registration: string }>(
      'SELECT sealed_registration FROM mcp_client_registrations WHERE issuer = $1 AND redirect_uri = $2 AND created_at >= $3',
      [issuer, redirectUri, notBefore],
    );
    if (!row) return null;
    try {
      const registration = JSON.parse(this.box.decrypt(row.sealed_registration, contextOf(issuer, redirectUri))) as ClientRegistration;
      return registration.issuer === issuer ? registration : null;
    } catch (error) {
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
  }

  async save(registration: ClientRegistration, redirectUri: string, now: Date): Promise<void> {
    const sealed = this.box.encrypt(JSON.stringify(registration), contextOf(registration.issuer, redirectUri));
    await this.query(
      `INSERT INTO mcp_client_registrations (issuer, redirect_uri, client_id, sealed_registration, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (issuer, redirect_uri) DO UPDATE SET client_id = $3, sealed_registration = $4, created_at = $5`,
      [registration.issuer, redirectUri, registration.clientId, sealed, now],
    );
  }

  async forget(issuer: string, clientId: string): Promise<void> {
    await this.query('DELETE FROM mcp_client_registrations WHERE issuer = $1 AND client_id = $2', [issuer, clientId]);
  }

  private query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return databaseCall(this.manager.query<T[]>(sql, params));
  }
}

function contextOf(issuer: string, redirectUri: string): string {
  return JSON.stringify(['mcp_client_registrations', issuer, redirectUri]);
}
