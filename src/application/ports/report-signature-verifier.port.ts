/** What checking a signed payload found. */
export type SignatureCheck =
  | { outcome: 'valid' }
  | { outcome: 'invalid' }
  /** No listed key could be had at all (the list was never fetched); another fetch may be tried after this long. */
  | { outcome: 'unavailable'; retryAfterSeconds: number };

/**
 * Checks that a payload was signed by one of the public keys a secret scanner
 * publishes (GitHub's secret scanning partner program): `keyIdentifier` names
 * the key, `signature` is as the scanner sent it.
 */
export interface ReportSignatureVerifier {
  verify(payload: Uint8Array, keyIdentifier: string, signature: string): Promise<SignatureCheck>;
}
