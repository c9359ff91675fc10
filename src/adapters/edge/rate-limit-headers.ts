/** What the RateLimit header fields say about a key's current window. */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Whole seconds until the window ends. */
  resetSeconds: number;
}

/**
 * RateLimit-Policy and RateLimit as the IETF httpapi draft
 * (draft-ietf-httpapi-ratelimit-headers) spells them, one policy named "key".
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"key";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"key";r=${Math.max(0, state.remaining)};t=${Math.max(0, state.resetSeconds)}`,
  };
}
