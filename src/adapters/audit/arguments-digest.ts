import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * SHA-256 hex of a tool call's arguments as canonical JSON, `{}` when the call
 * sent none (the tool sees no arguments as an empty object), so a caller who
 * kept what they sent can show it was this call without the trail keeping it.
 */
export function argumentsSha256(args: Record<string, unknown> | undefined): string {
  return hash('sha256', canonicalArguments(args ?? {}), 'hex');
}

/**
 * A number JSON cannot hold (`1e999` parses to Infinity) has no canonical
 * form: it counts as null, as JSON.stringify writes it, because a call that
 * ran is answered only with its event, and the event needs this digest.
 */
function canonicalArguments(args: Record<string, unknown>): string {
  try {
    return canonicalJson(args);
  } catch {
    return canonicalJson(JSON.parse(JSON.stringify(args)));
  }
}
