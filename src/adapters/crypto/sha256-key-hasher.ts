import { createHash } from 'node:crypto';
import { KeyHasher } from '../../application/ports/key-hasher.port';

export class Sha256KeyHasher implements KeyHasher {
  hash(rawKey: string): string {
    return createHash('sha256').update(rawKey, 'utf8').digest('hex');
  }
}
