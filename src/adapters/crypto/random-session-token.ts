import { randomBytes } from 'node:crypto';
import { SessionTokenGenerator } from '../../application/ports/session-token.port';

/** 256 random bits as unpadded base64url: 43 characters, all allowed in a header value. */
export class RandomSessionToken implements SessionTokenGenerator {
  generate(): string {
    return randomBytes(32).toString('base64url');
  }
}
