import { FieldError, ValidationError } from '../../../domain/errors';
import { textProblem } from '../../../domain/text-field';

/** At most this many tokens per report (GitHub sends up to 1000). */
export const MAX_REPORTS = 1000;
export const MAX_TOKEN = 1024;
export const MAX_TYPE = 255;
export const MAX_URL = 2048;
export const MAX_SOURCE = 255;

/** One token a scanner found: where (url) and in what (source, e.g. "commit"). */
export interface LeakReport {
  token: string;
  type: string;
  url: string | null;
  source: string | null;
}

type Parsed = { ok: true; value: string | null } | { ok: false; message: string };

/**
 * The reports in a payload, in order, or a ValidationError listing what is
 * wrong. The whole report is refused when one element is bad, so nothing is
 * ever partly done. Messages never quote a value: a token must not reach an
 * error text. Fields other than these four are ignored, so that the scanner
 * may add some to its format without every report being refused.
 */
export function parseLeakReports(payload: Uint8Array): LeakReport[] {
  const body = parseJson(payload);
  if (!Array.isArray(body)) throw ValidationError.single('body', 'must be a JSON array of reports');
  if (body.length > MAX_REPORTS) throw ValidationError.single('body', `must hold at most ${MAX_REPORTS} reports`);
  const errors: FieldError[] = [];
  const reports = body.map((element: unknown, i) => {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      errors.push({ field: `[${i}]`, message: 'must be an object' });
      return null;
    }
    const fields = element as Record<string, unknown>;
    const take = (name: string, parsed: Parsed): string | null => {
      if (parsed.ok) return parsed.value;
      errors.push({ field: `[${i}].${name}`, message: parsed.message });
      return null;
    };
    const token = take('token', text(fields.token, MAX_TOKEN, true, false));
    const type = take('type', text(fields.type, MAX_TYPE, true, true));
    const url = take('url', text(fields.url, MAX_URL, false, true));
    const source = take('source', text(fields.source, MAX_SOURCE, false, true));
    return { token: token ?? '', type: type ?? '', url, source };
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return reports as LeakReport[];
}

function parseJson(payload: Uint8Array): unknown {
  try {
    // fatal: bytes that are not UTF-8 are refused rather than turned into U+FFFD and hashed as some other token.
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw ValidationError.single('body', 'must be UTF-8 JSON');
  }
}

/**
 * Required fields must be non-empty strings; optional ones may be absent or
 * null. `type`, `url` and `source` are stored in the audit trail, so they must
 * be storable; the token is only hashed, never stored.
 */
function text(value: unknown, max: number, required: boolean, stored: boolean): Parsed {
  if (value === undefined || value === null) {
    return required ? { ok: false, message: 'is required and must be a string' } : { ok: true, value: null };
  }
  if (typeof value !== 'string') return { ok: false, message: 'must be a string' };
  if (required && value.length === 0) return { ok: false, message: 'must not be empty' };
  if (value.length > max) return { ok: false, message: `must be at most ${max} characters` };
  const problem = stored ? textProblem(value) : null;
  return problem === null ? { ok: true, value } : { ok: false, message: problem };
}
