import { ClientRegistration } from './upstream-authorization.port';

/**
 * The clients keygate registered dynamically (RFC 7591), one per
 * authorization server and redirect URI, shared by every user: client ids
 * are issuer-scoped, and registering on each connect would leave a client
 * behind at the authorization server for every click. Sealed at rest (a
 * registration may hold a client secret).
 */
export interface ClientRegistrationStore {
  /** The registration made at `issuer` for `redirectUri` since `notBefore`; null for none, an older one, or one that does not open. */
  find(issuer: string, redirectUri: string, notBefore: Date): Promise<ClientRegistration | null>;
  /** Keeps it (replacing any for the same issuer and redirect URI), made at `now`. */
  save(registration: ClientRegistration, redirectUri: string, now: Date): Promise<void>;
  /** Forgets the one with this client id: the authorization server no longer knows it. */
  forget(issuer: string, clientId: string): Promise<void>;
}
