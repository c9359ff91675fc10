import { InsufficientScopeError } from '../../../domain/errors';
import { Scope, ScopeSet } from '../../../domain/scope';
import { grantedScopes } from '../granted-scopes';

export interface AuthorizeForwardedRequestInput {
  /** The validated key (ValidateKey's principal), already counted against its rate limit. */
  principal: { keyId: string; userId: string; scopes: ScopeSet };
  /** The one scope the proxied route needs; null: any valid key will do. */
  requiredScope: Scope | null;
}

/** What a proxy passes on to the service it protects. */
export interface ForwardedIdentity {
  userId: string;
  keyId: string;
  /** 'all' for a full-access key, so new catalog scopes need no change downstream; otherwise every scope granted. */
  scopes: 'all' | string[];
}

/**
 * The last step of forward auth (GET /authz): the key is valid and within its
 * rate limit; it passes if it grants the required scope, by the same rules
 * as a tool call (spec 4.5). The quota is not charged: only tools/call spends it.
 */
export class AuthorizeForwardedRequest {
  execute(input: AuthorizeForwardedRequestInput): ForwardedIdentity {
    const { principal, requiredScope } = input;
    if (requiredScope !== null && !principal.scopes.allows(requiredScope)) throw new InsufficientScopeError([requiredScope.value]);
    return {
      userId: principal.userId,
      keyId: principal.keyId,
      scopes: principal.scopes.isFullAccess ? 'all' : grantedScopes(principal.scopes),
    };
  }
}
