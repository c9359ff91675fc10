import { LeakVerdict } from '../../../application/use-cases/report-leaked-keys/report-leaked-keys.use-case';
import { LeakVerdictDto } from './leak-report.dto';

/** GitHub's secret scanning partner answer for one reported token; the token itself is never echoed. */
export function presentLeakVerdict(verdict: LeakVerdict): LeakVerdictDto {
  return { token_hash: verdict.tokenHash, token_type: verdict.tokenType, label: verdict.label };
}
