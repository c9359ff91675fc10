import { useState } from 'preact/hooks';
import { api, CreatedKey } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { Access, ScopePicker, scopesOf } from '../components/scope-picker';
import { SecretOnce } from '../components/secret-once';

const EXPIRY = [
  { days: 0, label: 'Never' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
];
const WINDOWS = [{ s: 1, label: 'second' }, { s: 60, label: 'minute' }, { s: 3600, label: 'hour' }, { s: 86400, label: 'day' }];

export function CreateKeyPage() {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Record<string, Access>>({});
  const [days, setDays] = useState(90);
  const [rate, setRate] = useState({ on: false, limit: 60, window: 60 });
  const [quota, setQuota] = useState({ on: false, remaining: 1000, refill: 'none' as 'none' | 'hour' | 'day' | 'month' });
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);

  if (created) return <SecretOnce title={`Key "${created.name}" created`} rawKey={created.raw_key} onDone={() => (location.hash = '#/keys')} />;

  const submit = (event: Event) => {
    event.preventDefault();
    setError(null);
    api<CreatedKey>('POST', '/api-keys', {
      name: name.trim(),
      scopes: scopesOf(scopes),
      ...(days > 0 ? { expires_at: new Date(Date.now() + days * 86400_000).toISOString() } : {}),
      rate_limit: rate.on ? { limit: rate.limit, window_seconds: rate.window } : null,
      quota: quota.on ? { remaining: quota.remaining, refill: quota.refill === 'none' ? null : { amount: quota.remaining, interval: quota.refill } } : null,
    }).then(({ data }) => setCreated(data), (e) => setError(messageOf(e)));
  };
  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">Create an API key</h1>
      <form onSubmit={submit} class="form">
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <ScopePicker value={scopes} onChange={setScopes} />
        <label for="expiry">Expires</label>
        <select id="expiry" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {EXPIRY.map((x) => <option key={x.days} value={x.days}>{x.label}</option>)}
        </select>
        <fieldset>
          <legend>Rate limit</legend>
          <label><input type="checkbox" checked={rate.on} onChange={(e) => setRate({ ...rate, on: e.currentTarget.checked })} /> Limit requests</label>
          {rate.on && (
            <div class="inline">
              <label for="rate-limit">Requests</label>
              <input id="rate-limit" type="number" min={1} max={1000000} value={rate.limit} onInput={(e) => setRate({ ...rate, limit: Number(e.currentTarget.value) })} />
              <label for="rate-window">per</label>
              <select id="rate-window" value={rate.window} onChange={(e) => setRate({ ...rate, window: Number(e.currentTarget.value) })}>
                {WINDOWS.map((w) => <option key={w.s} value={w.s}>{w.label}</option>)}
              </select>
            </div>
          )}
        </fieldset>
        <fieldset>
          <legend>Quota of tool calls</legend>
          <label><input type="checkbox" checked={quota.on} onChange={(e) => setQuota({ ...quota, on: e.currentTarget.checked })} /> Limit tool calls</label>
          {quota.on && (
            <div class="inline">
              <label for="quota-remaining">Calls</label>
              <input id="quota-remaining" type="number" min={1} max={1000000000} value={quota.remaining} onInput={(e) => setQuota({ ...quota, remaining: Number(e.currentTarget.value) })} />
              <label for="quota-refill">refilled</label>
              <select id="quota-refill" value={quota.refill} onChange={(e) => setQuota({ ...quota, refill: e.currentTarget.value as typeof quota.refill })}>
                <option value="none">never</option><option value="hour">every hour</option><option value="day">every day</option><option value="month">every month</option>
              </select>
            </div>
          )}
        </fieldset>
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="submit">Create key</button>
          <a class="button secondary" href="#/keys">Cancel</a>
        </div>
      </form>
    </section>
  );
}
