import { createHash } from 'node:crypto';
import { ContentDigest } from '../../application/ports/content-digest.port';

export class Sha256ContentDigest implements ContentDigest {
  sha256(text: string): string {
    return createHash('sha256').update(text, 'utf8').digest('hex');
  }
}
