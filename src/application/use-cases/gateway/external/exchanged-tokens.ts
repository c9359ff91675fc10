import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { ExpiringCache } from '../../../ports/expiring-cache.port';
import { KeyHasher } from '../../../ports/key-hasher.port';
import { UpstreamAuthorization } from '../../../ports/upstream-authorization.port';
import { ServerAuth } from './server-auth';

export type TokenExchangeAuth = Extract<ServerAuth, { type: 'token_exchange' }>;

/** Kept this long when the authorization server did not say how long the token lives (`expires_in`). */
export const UNDATED_KEEP_MS = 60_000;
/** Dropped this long before it expires (at most half its lifetime), so no call sends a token about to lapse. */
export const EXPIRY_MARGIN_MS = 30_000;

/**
 * Upstream tokens of a token_exchange server, made from the caller's own
 * access token (RFC 8693) at the record's token endpoint, for its audience,
 * with its client. Kept per (hash of the subject token, record version) until
 * shortly before they expire, so a run of calls exchanges once; an edited
 * record is a new key. The subject token itself is never kept, only its hash.
 */
export class ExchangedTokens {
  constructor(
    private readonly authorization: UpstreamAuthorization,
    private readonly cache: ExpiringCache<string>,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  /** The upstream access token (secret); throws the port's UpstreamAuthorizationError, or an UpstreamRefusal, when there is none. */
  open(record: ResourceRecord, auth: TokenExchangeAuth, subjectToken: string): Promise<string> {
    const key = `${this.hasher.hash(subjectToken)} ${record.id}@${record.updatedAt.toISOString()}`;
    return this.cache.get(key, async () => {
      const tokens = await this.authorization.exchange({
        tokenEndpoint: auth.token_endpoint,
        client: { clientId: auth.client_id, ...(auth.client_secret !== undefined && { clientSecret: auth.client_secret }) },
        subjectToken,
        audience: auth.audience,
      });
      return { value: tokens.accessToken, keepUntil: this.keepUntil(tokens.expiresAt) };
    });
  }

  private keepUntil(expiresAt: Date | undefined): Date {
    const now = this.clock.now().getTime();
    if (expiresAt === undefined) return new Date(now + UNDATED_KEEP_MS);
    const lifetime = expiresAt.getTime() - now;
    return new Date(expiresAt.getTime() - Math.min(EXPIRY_MARGIN_MS, Math.max(0, lifetime) / 2));
  }
}
