import { verify } from 'node:crypto';
import { ReportSignatureVerifier, SignatureCheck } from '../../application/ports/report-signature-verifier.port';
import { ScannerKeyList } from './scanner-key-list';

/** A DER ECDSA P-256 signature is at most 72 bytes, 96 characters in base64; room is left for padding quirks, nothing more. */
const MAX_SIGNATURE_CHARS = 128;
const MAX_IDENTIFIER_CHARS = 256;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const INVALID: SignatureCheck = { outcome: 'invalid' };

/**
 * ECDSA P-256 over SHA-256, the signature base64 of its DER form (GitHub's
 * secret scanning partner program). A malformed signature or identifier is
 * refused before the key list is consulted, so it never causes a fetch.
 */
export class EcdsaReportSignatureVerifier implements ReportSignatureVerifier {
  constructor(private readonly keys: ScannerKeyList) {}

  async verify(payload: Uint8Array, keyIdentifier: string, signature: string): Promise<SignatureCheck> {
    if (keyIdentifier.length > MAX_IDENTIFIER_CHARS) return INVALID;
    if (signature.length > MAX_SIGNATURE_CHARS || signature.length % 4 !== 0 || !BASE64.test(signature)) return INVALID;
    const lookup = await this.keys.keyFor(keyIdentifier);
    if ('unavailable' in lookup) return { outcome: 'unavailable', retryAfterSeconds: lookup.retryAfterSeconds };
    if (!('found' in lookup)) return INVALID;
    try {
      // DER is node's default encoding for ECDSA signatures.
      return verify('sha256', payload, lookup.found, Buffer.from(signature, 'base64')) ? { outcome: 'valid' } : INVALID;
    } catch {
      // A signature that is not DER at all.
      return INVALID;
    }
  }
}
