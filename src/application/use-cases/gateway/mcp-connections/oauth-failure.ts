import { ValidationError } from '../../../../domain/errors';
import { UpstreamAuthorizationError } from '../../../ports/upstream-authorization.port';
import { UpstreamRefusal } from '../../../ports/upstream-refusal';

/**
 * An authorization step the upstream's authorization server made fail, as a
 * 400 on `auth` that names the step's stable code and its safe message (the
 * port's errors carry no token, code or secret); anything else passes as is.
 */
export function authorizationFailure(error: unknown): unknown {
  if (error instanceof UpstreamAuthorizationError) {
    const said = error.oauthError === undefined ? '' : ` (the authorization server said ${error.oauthError})`;
    return ValidationError.single('auth', `the upstream authorization failed: ${error.code}: ${error.message}${said}`);
  }
  if (error instanceof UpstreamRefusal) return ValidationError.single('auth', `the upstream authorization failed: ${error.message}`);
  return error;
}
