import { RawRequest } from './raw-http';

/** The contract of the hardening issue: an answer amplified from a request stays within 64 KiB. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** What a route's bound may depend on besides the request: what the service has stored. */
export interface StoredSizes {
  /** Bytes of every stored audit event as the API writes it (the NDJSON export of all of them, as an admin). */
  auditTrailBytes(): Promise<number>;
}

/** A route whose answer is bounded otherwise than by 64 KiB, and by what. */
export interface AnswerBound {
  route: string;
  matches(request: RawRequest): boolean;
  /** Without `stored` (a target that cannot tell), a bound that needs it falls back to MAX_RESPONSE_BYTES. */
  maxBytes(request: RawRequest, stored?: StoredSizes): Promise<number>;
  why: string;
}

/** One verdict of a leak report at its largest: a 64-hex hash, a 255-character type JSON writes as six bytes each, a label. */
export const MAX_LEAK_VERDICT_BYTES = 1_700;
/** The envelope of a page of audit events (`{"events":[…],"next_cursor":"…"}`) besides the events. */
const AUDIT_PAGE_ENVELOPE_BYTES = 1024;

const pathOf = (request: RawRequest) => request.path.split('?')[0];

/**
 * The routes the 64 KiB rule does not fit, each with its bound stated (docs/security-limits.md,
 * "Security limits"). Every other route is held to MAX_RESPONSE_BYTES.
 */
export const ANSWER_BOUNDS: AnswerBound[] = [
  {
    route: 'GET /api/v1/audit-events (JSON pages and the NDJSON export)',
    matches: (r) => r.method === 'GET' && /^\/api\/v1\/audit-events\/?$/.test(pathOf(r)),
    // Read after the answer: the trail only grows, so a page holding events written meanwhile still fits.
    maxBytes: async (_r, stored) => (stored ? (await stored.auditTrailBytes()) + AUDIT_PAGE_ENVELOPE_BYTES : MAX_RESPONSE_BYTES),
    why: "the caller's own stored events, each at most once: never more than the whole trail (a page holds at most 1,000 of them)",
  },
  {
    route: 'POST /api/v1/secret-scanning/reports',
    matches: (r) => r.method === 'POST' && /^\/api\/v1\/secret-scanning\/reports\/?$/.test(pathOf(r)),
    maxBytes: async (r) => Math.max(MAX_RESPONSE_BYTES, 2 + reportsIn(r) * MAX_LEAK_VERDICT_BYTES),
    why: 'one verdict per reported token of a signed report (at most 1,000, so 1.7 MB); 64 KiB for anything else',
  },
];

function reportsIn(request: RawRequest): number {
  try {
    const body: unknown = JSON.parse(request.body?.toString('utf8') ?? '');
    return Array.isArray(body) ? body.length : 0;
  } catch {
    return 0;
  }
}

/** The most bytes an answer to `request` may have. */
export async function answerBoundOf(request: RawRequest, stored?: StoredSizes): Promise<number> {
  const bound = ANSWER_BOUNDS.find((b) => b.matches(request));
  return bound === undefined ? MAX_RESPONSE_BYTES : bound.maxBytes(request, stored);
}
