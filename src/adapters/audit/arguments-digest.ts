import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * SHA-256 hex of a tool call's arguments as canonical JSON, `{}` when the call
 * sent none (the tool sees no arguments as an empty object), so a caller who
 * kept what they sent can show it was this call without the trail keeping it.
 */
export function argumentsSha256(args: Record<string, unknown> | undefined): string {
  return hash('sha256', canonicalJson(args ?? {}), 'hex');
}
