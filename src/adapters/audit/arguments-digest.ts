import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * SHA-256 hex of a tool call's arguments as canonical JSON, `{}` when the call
 * sent none (the tool sees no arguments as an empty object), so a caller who
 * kept what they sent can show it was this call without the trail keeping it.
 */
export function argumentsSha256(args: Record<string, unknown> | undefined): string {
  return createHash('sha256').update(canonicalJson(args ?? {})).digest('hex');
}
