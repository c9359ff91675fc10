import { createHash } from 'node:crypto';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { Scope, ScopeSet } from '../../domain/scope';
import { AccessTokenRefusedError } from './access-token-refused.error';
import { ExpectedClaims, JwksAccessTokenVerifier } from './jwks-access-token-verifier';

/**
 * Longest token looked at. Real access tokens are 1–2 KB; refusing a larger
 * one before decoding bounds the base64 and JSON work a caller can ask for.
 */
export const MAX_ACCESS_TOKEN_CHARS = 8192;

export interface McpTokenOptions {
  /** MCP_RESOURCE_URL: the audience a token must name (RFC 8707). */
  resourceUrl: string;
  /** MCP_AUTHORIZATION_SERVERS: the issuers accepted. */
  authorizationServers: readonly string[];
}

type Claims = Pick<JwksAccessTokenVerifier, 'verifyClaims'>;

/**
 * A user's OAuth access token on /mcp as the principal a key would give: the
 * REST API's JWKS (and its key cache), an issuer among the authorization
 * servers, the resource among the audiences (a token minted for the REST API
 * or any other resource is refused: no token passthrough), an `exp`. The
 * scopes are exactly the keygate scopes the token grants; a token granting
 * none grants nothing, never the full access an empty key scope list means.
 */
export class McpAccessTokenVerifier {
  private readonly expected: ExpectedClaims;
  private readonly resourceUrl: string;
  /** At most one set per subset of the 12 scopes: tools/list caches by set, and tokens rarely differ. */
  private readonly scopeSets = new Map<string, ScopeSet>();

  constructor(
    private readonly claims: Claims,
    options: McpTokenOptions,
  ) {
    const [first, ...rest] = options.authorizationServers;
    this.expected = { issuer: [first, ...rest], audience: options.resourceUrl };
    this.resourceUrl = options.resourceUrl;
  }

  /**
   * `endpoint`: the canonical URL of the endpoint asked when it is a resource
   * inside /mcp's (/mcp/servers/<name>); a token for it is good there besides
   * one for /mcp itself, which reaches every server. A token for one server's
   * endpoint is good nowhere else.
   */
  async verify(token: string, endpoint: string | null = null): Promise<KeyPrincipal> {
    if (token.length > MAX_ACCESS_TOKEN_CHARS) throw new AccessTokenRefusedError('token too large', `${token.length} characters`, 'debug');
    const expected: ExpectedClaims = endpoint === null ? this.expected : { ...this.expected, audience: [this.resourceUrl, endpoint] };
    const payload = await this.claims.verifyClaims(token, expected);
    const userId = payload.sub.toLowerCase();
    const ownerId = subjectId(String(payload.iss), userId);
    return {
      keyId: ownerId,
      userId,
      scopes: this.scopesOf(payload.scope, payload.scp),
      budgetId: ownerId,
      rateLimit: null,
      hasQuota: false,
      accessToken: { expiresAt: new Date(payload.exp * 1000), token },
    };
  }

  /** `scope` (RFC 8693/9068: space-separated) when the token has one, else `scp` (an array, as some providers write it); unknown values are skipped. */
  private scopesOf(scope: unknown, scp: unknown): ScopeSet {
    const values = typeof scope === 'string' ? scope.split(' ') : Array.isArray(scp) ? scp : [];
    const held = new Set<string>();
    for (const value of values) {
      const parsed = Scope.tryParse(value);
      if (parsed) held.add(parsed.value);
    }
    const name = [...held].sort().join(' ');
    let set = this.scopeSets.get(name);
    if (set === undefined) {
      set = ScopeSet.exactly([...held].map((v) => Scope.parse(v)));
      this.scopeSets.set(name, set);
    }
    return set;
  }
}

/**
 * The subject's own id, what its sessions belong to: a UUID from the issuer
 * and subject (one user at two issuers is two subjects), with version 8
 * (RFC 9562's custom form) so it never equals a key's random version-4 id.
 */
export function subjectId(issuer: string, subject: string): string {
  const hex = createHash('sha256').update(`keygate-mcp-subject\0${issuer}\0${subject}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
