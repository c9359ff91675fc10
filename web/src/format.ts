import type { ApiKey, Quota, RateLimit } from './api';

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function relativeTime(iso: string | null, never = 'never'): string {
  if (!iso) return never;
  const seconds = (new Date(iso).getTime() - Date.now()) / 1000;
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['second', 1];
  return relative.format(Math.round(seconds / size), unit);
}

export function shortDate(iso: string | null, none = '—'): string {
  return iso ? new Date(iso).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : none;
}

export function windowText(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export function rateText(rate: RateLimit | null): string {
  return rate ? `${rate.limit} per ${windowText(rate.window_seconds)}` : 'none';
}

export function quotaText(quota: Quota | null): string {
  if (!quota) return 'none';
  return quota.refill ? `${quota.remaining} left, ${quota.refill.amount} each ${quota.refill.interval}` : `${quota.remaining} left`;
}

/** When a key stops working: a rolled key's grace counts down, a passed expiry says so. */
export function expiryText(key: Pick<ApiKey, 'expires_at' | 'replaced_by' | 'revoked_at'>): string {
  if (key.revoked_at) return `revoked ${relativeTime(key.revoked_at)}`;
  if (!key.expires_at) return 'never';
  const past = new Date(key.expires_at).getTime() <= Date.now();
  if (key.replaced_by) return past ? `rolled, stopped ${relativeTime(key.expires_at)}` : `rolled, stops ${relativeTime(key.expires_at)}`;
  return past ? `expired ${relativeTime(key.expires_at)}` : shortDate(key.expires_at);
}
