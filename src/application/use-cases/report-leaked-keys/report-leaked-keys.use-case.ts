import { ApiKey, isWellFormedRawKey } from '../../../domain/api-key';
import { AuditOrigin, AuditRecord, NO_ORIGIN } from '../../../domain/audit';
import { InvalidSignatureError, SigningKeysUnavailableError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { KeyHasher } from '../../ports/key-hasher.port';
import { ReportSignatureVerifier } from '../../ports/report-signature-verifier.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { auditEvent } from '../actor-event';
import { LeakReport, parseLeakReports } from './leak-report';

export interface ReportLeakedKeysInput {
  /** The body exactly as received: the signature covers these bytes, and only they are parsed. */
  payload: Uint8Array;
  /** Which of the scanner's public keys signed it. */
  keyIdentifier?: string;
  /** Base64 of the DER ECDSA P-256 SHA-256 signature of `payload`. */
  signature?: string;
  origin?: AuditOrigin;
}

export type LeakLabel = 'true_positive' | 'false_positive';

export interface LeakVerdict {
  /** SHA-256 hex of the token as sent: the scanner matches verdicts to tokens by it, and the token is never echoed. */
  tokenHash: string;
  tokenType: string;
  label: LeakLabel;
}

/**
 * A secret scanner reports tokens it found in public (GitHub's partner
 * format). Each one that is an active key is revoked at once, and the trail
 * records key.leaked; the verdicts answer the reports in order. Nothing is
 * looked at before the signature is checked over the exact bytes.
 *
 * All revocations of a report share one transaction: a failure revokes none,
 * so the scanner's retry finds the same keys active and gets the same
 * labels (one transaction per token would label a key revoked by a failed
 * first attempt as a false positive on the retry).
 */
export class ReportLeakedKeys {
  constructor(
    private readonly signatures: ReportSignatureVerifier,
    private readonly work: UnitOfWork,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: ReportLeakedKeysInput): Promise<LeakVerdict[]> {
    const signer = await this.checkSignature(input);
    const reports = parseLeakReports(input.payload);
    // KeyHasher is SHA-256 hex (spec 2.1), so one hash serves as the answer's token_hash and the key look-up.
    const hashes = reports.map((report) => this.hasher.hash(report.token));
    // Only tokens in the key format can be keys; a token reported twice is looked up, revoked and recorded once.
    const candidates = new Map<string, LeakReport>();
    reports.forEach((report, i) => {
      if (isWellFormedRawKey(report.token) && !candidates.has(hashes[i])) candidates.set(hashes[i], report);
    });
    const leaked = candidates.size === 0 ? new Set<string>() : await this.revoke(candidates, signer, input.origin ?? NO_ORIGIN);
    return reports.map((report, i) => ({
      tokenHash: hashes[i],
      tokenType: report.type,
      label: leaked.has(hashes[i]) ? 'true_positive' : 'false_positive',
    }));
  }

  /** The identifier of the key that signed the payload. */
  private async checkSignature({ payload, keyIdentifier, signature }: ReportLeakedKeysInput): Promise<string> {
    if (!isPresent(keyIdentifier) || !isPresent(signature)) throw new InvalidSignatureError();
    const check = await this.signatures.verify(payload, keyIdentifier, signature);
    if (check.outcome === 'unavailable') throw new SigningKeysUnavailableError(check.retryAfterSeconds);
    if (check.outcome !== 'valid') throw new InvalidSignatureError();
    return keyIdentifier;
  }

  /** The hashes of the candidates that were active keys, now revoked. */
  private revoke(candidates: Map<string, LeakReport>, signer: string, origin: AuditOrigin): Promise<Set<string>> {
    return this.work.run(async ({ keys, audit }) => {
      const now = this.clock.now();
      const revoked = new Set<string>();
      const events: AuditRecord[] = [];
      for (const [hash, report] of candidates) {
        const key = await keys.findByHash(hash);
        // An expired or revoked key no longer opens anything; revoke() is false when another revocation got there first.
        if (!key || !key.isUsableAt(now) || !(await keys.revoke(key.id, now))) continue;
        revoked.add(hash);
        events.push(leakEvent(key, report, signer, origin, now));
      }
      await audit.append(events);
      return revoked;
    });
  }
}

function isPresent(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

function leakEvent(key: ApiKey, report: LeakReport, signer: string, origin: AuditOrigin, at: Date): AuditRecord {
  const subject = { userId: key.userId, keyId: key.id, target: { type: 'api_key', id: key.id } };
  return auditEvent('key.leaked', { type: 'scanner', id: signer }, subject, origin, at, {
    url: report.url,
    source: report.source,
    token_type: report.type,
  });
}
