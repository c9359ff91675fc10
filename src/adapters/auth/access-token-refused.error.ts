import { InvalidAccessTokenError } from '../../domain/errors';

/**
 * A token that was presented and refused. The message is the 401's detail and
 * says what was wrong in general terms ("token issuer not accepted"); `detail`
 * (the issuer or audience that would have passed, the library's reason) is for
 * the log only, since telling the caller what would pass helps whoever is
 * forging tokens more than the user. Neither ever holds the token.
 */
export class AccessTokenRefusedError extends InvalidAccessTokenError {
  constructor(
    message: string,
    readonly detail: string,
    /** Expired and malformed tokens are routine client trouble; the rest may be a misconfiguration or an attack. */
    readonly logLevel: 'debug' | 'warn' = 'warn',
  ) {
    super(message);
  }
}
