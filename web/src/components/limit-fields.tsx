import type { Quota, RateLimit } from '../api';

export interface RateChoice {
  on: boolean;
  limit: number;
  window: number;
}
export type Refill = 'none' | 'hour' | 'day' | 'month';
export interface QuotaChoice {
  on: boolean;
  calls: number;
  refill: Refill;
}

const WINDOWS = [
  { s: 1, label: 'second' },
  { s: 60, label: 'minute' },
  { s: 3600, label: 'hour' },
  { s: 86400, label: 'day' },
];

export const NO_RATE: RateChoice = { on: false, limit: 60, window: 60 };
export const NO_QUOTA: QuotaChoice = { on: false, calls: 1000, refill: 'none' };

export function rateChoiceOf(rate: RateLimit | null): RateChoice {
  return rate ? { on: true, limit: rate.limit, window: rate.window_seconds } : NO_RATE;
}

/** A refilled quota is shown by its refill amount, not today's balance: saving it sets both to that number. */
export function quotaChoiceOf(quota: Quota | null): QuotaChoice {
  if (!quota) return NO_QUOTA;
  return quota.refill
    ? { on: true, calls: quota.refill.amount, refill: quota.refill.interval }
    : { on: true, calls: quota.remaining, refill: 'none' };
}

export function rateBody(rate: RateChoice): RateLimit | null {
  return rate.on ? { limit: rate.limit, window_seconds: rate.window } : null;
}

export function quotaBody(quota: QuotaChoice): Quota | null {
  return quota.on
    ? { remaining: quota.calls, refill: quota.refill === 'none' ? null : { amount: quota.calls, interval: quota.refill } }
    : null;
}

export function RateLimitFields({ value, onChange }: { value: RateChoice; onChange: (next: RateChoice) => void }) {
  // A window the list below lacks (set over the API) stays choosable as it is.
  const windows = WINDOWS.some((w) => w.s === value.window) ? WINDOWS : [...WINDOWS, { s: value.window, label: `${value.window} seconds` }];
  return (
    <fieldset>
      <legend>Rate limit</legend>
      <label>
        <input type="checkbox" checked={value.on} onChange={(e) => onChange({ ...value, on: e.currentTarget.checked })} /> Limit requests
      </label>
      {value.on && (
        <div class="inline">
          <label for="rate-limit">Requests</label>
          <input
            id="rate-limit"
            type="number"
            min={1}
            max={1000000}
            required
            value={value.limit}
            onInput={(e) => onChange({ ...value, limit: Number(e.currentTarget.value) })}
          />
          <label for="rate-window">per</label>
          <select id="rate-window" value={value.window} onChange={(e) => onChange({ ...value, window: Number(e.currentTarget.value) })}>
            {windows.map((w) => (
              <option key={w.s} value={w.s}>
                {w.label}
              </option>
            ))}
          </select>
        </div>
      )}
    </fieldset>
  );
}

export function QuotaFields({ value, onChange, note }: { value: QuotaChoice; onChange: (next: QuotaChoice) => void; note?: string }) {
  return (
    <fieldset>
      <legend>Quota of tool calls</legend>
      <label>
        <input type="checkbox" checked={value.on} onChange={(e) => onChange({ ...value, on: e.currentTarget.checked })} /> Limit tool calls
      </label>
      {value.on && (
        <div class="inline">
          <label for="quota-remaining">Calls</label>
          <input
            id="quota-remaining"
            type="number"
            min={0}
            max={1000000000}
            required
            value={value.calls}
            onInput={(e) => onChange({ ...value, calls: Number(e.currentTarget.value) })}
          />
          <label for="quota-refill">refilled</label>
          <select id="quota-refill" value={value.refill} onChange={(e) => onChange({ ...value, refill: e.currentTarget.value as Refill })}>
            <option value="none">never</option>
            <option value="hour">every hour</option>
            <option value="day">every day</option>
            <option value="month">every month</option>
          </select>
        </div>
      )}
      {note && <p class="muted small">{note}</p>}
    </fieldset>
  );
}
