import { KeyIntrospection } from '../../../application/use-cases/introspect-key/introspect-key.use-case';
import { ActiveIntrospectionDto, InactiveIntrospectionDto } from './introspection.dto';

/**
 * RFC 7662 section 2.2, an allow-list: an inactive key is `{"active":false}`
 * and nothing more; an active one has no `exp` when it never expires.
 */
export function presentIntrospection(result: KeyIntrospection): InactiveIntrospectionDto | ActiveIntrospectionDto {
  if (!result.active) return { active: false };
  return {
    active: true,
    token_type: 'api_key',
    scope: result.scopes.join(' '),
    sub: result.userId,
    jti: result.keyId,
    iat: epochSeconds(result.createdAt),
    ...(result.expiresAt !== null && { exp: epochSeconds(result.expiresAt) }),
  };
}

function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
