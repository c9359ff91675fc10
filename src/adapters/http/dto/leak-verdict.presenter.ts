import { LeakVerdict } from '../../../application/use-cases/report-leaked-keys/report-leaked-keys.use-case';

/** GitHub's secret scanning partner answer for one reported token; the token itself is never echoed. */
export function presentLeakVerdict(verdict: LeakVerdict) {
  return { token_hash: verdict.tokenHash, token_type: verdict.tokenType, label: verdict.label };
}
