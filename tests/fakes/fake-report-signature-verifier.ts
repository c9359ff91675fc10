import { ReportSignatureVerifier, SignatureCheck } from '../../src/application/ports/report-signature-verifier.port';

/**
 * Accepts a payload when its signature is `sig:<identifier>` and the
 * identifier is listed; `unavailable` makes every check say the key list
 * cannot be had. `calls` counts the checks made.
 */
export class FakeReportSignatureVerifier implements ReportSignatureVerifier {
  calls = 0;
  unavailable = false;

  constructor(readonly identifiers: string[] = ['scanner-key-1']) {}

  static signatureBy(identifier: string): string {
    return `sig:${identifier}`;
  }

  async verify(_payload: Uint8Array, keyIdentifier: string, signature: string): Promise<SignatureCheck> {
    this.calls += 1;
    if (this.unavailable) return { outcome: 'unavailable', retryAfterSeconds: 30 };
    const good = this.identifiers.includes(keyIdentifier) && signature === FakeReportSignatureVerifier.signatureBy(keyIdentifier);
    return good ? { outcome: 'valid' } : { outcome: 'invalid' };
  }
}
