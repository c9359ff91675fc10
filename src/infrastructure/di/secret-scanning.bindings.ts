import { Router } from 'express';
import { Container, ResolutionContext } from 'inversify';
import { Logger } from 'pino';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { ReportSignatureVerifier } from '../../application/ports/report-signature-verifier.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { ReportLeakedKeys } from '../../application/use-cases/report-leaked-keys/report-leaked-keys.use-case';
import { SecretScanningController } from '../../adapters/http/controllers/secret-scanning.controller';
import { EcdsaReportSignatureVerifier } from '../../adapters/secret-scanning/ecdsa-report-signature-verifier';
import { ScannerKeyList } from '../../adapters/secret-scanning/scanner-key-list';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** GitHub's list is a few keys in a few KiB. */
const KEY_LIST = { timeoutMs: 5_000, maxBytes: 64 * 1024, maxKeys: 32, refetchIntervalMs: 60_000, maxAgeMs: 3_600_000 };

/**
 * Leak reports from a secret scanner. With SECRET_SCANNING_KEYS_URL unset the
 * routes are an empty router, so the path answers the 404 of any unknown
 * route, and nothing else here is ever built.
 */
export function bindSecretScanning(c: Container): void {
  c.bind(ScannerKeyList).toResolvedValue(
    ({ secretScanning }: Config, clock: Clock, logger: Logger) => new ScannerKeyList({
      ...KEY_LIST,
      url: keysUrlOf(secretScanning.keysUrl),
      now: () => clock.now().getTime(),
      warn: (message, error) => logger.warn(error === undefined ? {} : { err: error }, message),
    }),
    [TOKENS.Config, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind<ReportSignatureVerifier>(TOKENS.ReportSignatureVerifier).toResolvedValue(
    (keys: ScannerKeyList) => new EcdsaReportSignatureVerifier(keys),
    [ScannerKeyList],
  );
  c.bind(ReportLeakedKeys).toResolvedValue(
    (signatures: ReportSignatureVerifier, work: UnitOfWork, hasher: KeyHasher, clock: Clock) =>
      new ReportLeakedKeys(signatures, work, hasher, clock),
    [TOKENS.ReportSignatureVerifier, TOKENS.UnitOfWork, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(SecretScanningController).toResolvedValue((report: ReportLeakedKeys) => new SecretScanningController(report), [ReportLeakedKeys]);
  c.bind<Router>(TOKENS.SecretScanningRoutes).toDynamicValue((context: ResolutionContext) =>
    context.get<Config>(TOKENS.Config).secretScanning.keysUrl ? context.get(SecretScanningController).router() : Router());
}

function keysUrlOf(url: string | null): string {
  if (url === null) throw new Error('SECRET_SCANNING_KEYS_URL is unset: nothing should ask for the scanner key list');
  return url;
}
