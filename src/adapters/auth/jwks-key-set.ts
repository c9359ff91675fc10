import { KeyObject } from 'node:crypto';

/** A verification key of the set, parsed once per fetch rather than once per token. */
export interface JwksSigningKey {
  kid?: string;
  publicKey: KeyObject;
}

export interface JwksKeySetOptions {
  /** Fetches the whole JWKS and turns it into signing keys; throws when it cannot. */
  load: () => Promise<JwksSigningKey[]>;
  /**
   * The least time between two fetches asked for by a kid not in the set,
   * and, apart from those, between two background refreshes of a stale set.
   */
  refetchIntervalMs: number;
  /** Past this age the set is fetched again in the background, so a key the provider withdrew stops being accepted. */
  maxAgeMs: number;
  now: () => number;
  /** A fetch failed; the keys held stay in use. */
  warn: (message: string, error: unknown) => void;
}

/**
 * The identity provider's whole key set, kept and replaced whole.
 *
 * Why not jwks-rsa's own cache and rate limit: they work per kid and share
 * one budget. Its cache forgets each known key after cacheMaxAge, and the
 * fetch that would bring it back waits in the same limiter that made-up kids
 * drain, which, once empty, refuses the fetch (and the known key with it) or
 * holds the request for up to a minute. Here a known kid is answered from
 * memory, always; a stale set is refreshed in the background, on a budget of
 * its own; a failed fetch keeps the last good set; and a kid not in the set
 * may cause one fetch per refetchIntervalMs: a request that finds that
 * allowance spent is answered at once with no key, never queued. jwks-rsa
 * still fetches (through its fetcher contract) and turns the JWKS into keys.
 */
export class JwksKeySet {
  private keys: JwksSigningKey[] = [];
  private byKid = new Map<string, JwksSigningKey>();
  private fetchedAt: number | null = null;
  private unknownKidFetchAt = -Infinity;
  private refreshAt = -Infinity;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly options: JwksKeySetOptions) {}

  /** The key a token's `kid` names (none: the only key of a one-key set), or null. */
  async keyFor(kid: string | undefined): Promise<JwksSigningKey | null> {
    const known = this.held(kid);
    const now = this.options.now();
    if (known) {
      if (
        this.fetchedAt !== null &&
        now - this.fetchedAt >= this.options.maxAgeMs &&
        now - this.refreshAt >= this.options.refetchIntervalMs
      ) {
        this.refreshAt = now;
        void this.fetch();
      }
      return known;
    }
    // A fetch under way is joined (it ends by its own deadline); no new one beyond the allowance.
    if (!this.inFlight) {
      if (now - this.unknownKidFetchAt < this.options.refetchIntervalMs) return null;
      this.unknownKidFetchAt = now;
    }
    await this.fetch();
    return this.held(kid);
  }

  private held(kid: string | undefined): JwksSigningKey | null {
    if (kid === undefined) return this.keys.length === 1 ? this.keys[0] : null;
    return this.byKid.get(kid) ?? null;
  }

  /** Joins the fetch under way or starts one; never throws. */
  private fetch(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const started = this.options.now();
    this.inFlight = this.options
      .load()
      .then(
        (keys) => {
          this.keys = keys;
          this.byKid = new Map(keys.filter((k) => k.kid !== undefined).map((k) => [k.kid!, k]));
          this.fetchedAt = started;
        },
        (error: unknown) => this.options.warn('fetching the JWKS failed; keeping the keys held', error),
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }
}
