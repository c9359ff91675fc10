/**
 * How a tools/call ended, as usage counts it: `called` (it ran; a tool's own
 * isError result still ran), `denied` (scope, pin, rule, approval or an
 * unknown tool), `rate_limited`, `quota_exhausted` (429s), `upstream_error`
 * (the upstream failed: transport, timeout, 5xx, malformed answer).
 */
export const USAGE_OUTCOMES = ['called', 'denied', 'rate_limited', 'quota_exhausted', 'upstream_error'] as const;

export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

/** The tool name counted for a call whose body was never read (a rate-limited request). */
export const UNREAD_TOOL = '';

/** The tool name counted for an unknown tool, or for any tool once the bounds are reached. */
export const OTHER_TOOL = 'other';
