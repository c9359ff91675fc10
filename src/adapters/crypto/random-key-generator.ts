import { randomBytes } from 'node:crypto';
import { KeyGenerator } from '../../application/ports/key-generator.port';
import { RAW_KEY_PREFIX } from '../../domain/api-key';

export class RandomKeyGenerator implements KeyGenerator {
  generate(): string {
    return RAW_KEY_PREFIX + randomBytes(32).toString('hex');
  }
}
