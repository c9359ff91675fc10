import { ClientRegistrationStore } from '../../src/application/ports/client-registration-store.port';
import { ClientRegistration } from '../../src/application/ports/upstream-authorization.port';

/** ClientRegistrationStore in memory, for unit tests of the connection use-cases. */
export class InMemoryClientRegistrationStore implements ClientRegistrationStore {
  readonly kept = new Map<string, { registration: ClientRegistration; createdAt: Date }>();

  async find(issuer: string, redirectUri: string, notBefore: Date): Promise<ClientRegistration | null> {
    const row = this.kept.get(JSON.stringify([issuer, redirectUri]));
    return row && row.createdAt >= notBefore ? row.registration : null;
  }

  async save(registration: ClientRegistration, redirectUri: string, now: Date): Promise<void> {
    this.kept.set(JSON.stringify([registration.issuer, redirectUri]), { registration, createdAt: now });
  }

  async forget(issuer: string, clientId: string): Promise<void> {
    for (const [key, row] of this.kept)
      if (row.registration.issuer === issuer && row.registration.clientId === clientId) this.kept.delete(key);
  }
}
