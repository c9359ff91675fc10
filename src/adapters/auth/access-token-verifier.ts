import { Actor } from '../../domain/actor';

/** Turns an identity-provider access token into the acting user, or throws InvalidAccessTokenError. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<Actor>;
}
