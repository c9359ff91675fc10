import { useState } from 'preact/hooks';
import { api, CreatedKey, CreateKeyBody } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { NO_QUOTA, NO_RATE, QuotaFields, quotaBody, RateLimitFields, rateBody } from '../components/limit-fields';
import { Access, ScopePicker, scopesOf } from '../components/scope-picker';
import { SecretOnce } from '../components/secret-once';

const EXPIRY = [
  { days: 0, label: 'Never' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
];

export function CreateKeyPage() {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Record<string, Access>>({});
  const [days, setDays] = useState(90);
  const [rate, setRate] = useState(NO_RATE);
  const [quota, setQuota] = useState(NO_QUOTA);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);

  if (created)
    return <SecretOnce title={`Key "${created.name}" created`} rawKey={created.raw_key} onDone={() => (location.hash = '#/keys')} />;

  const submit = (event: Event) => {
    event.preventDefault();
    setError(null);
    const body: CreateKeyBody = {
      name: name.trim(),
      scopes: scopesOf(scopes),
      ...(days > 0 ? { expires_at: new Date(Date.now() + days * 86400_000).toISOString() } : {}),
      rate_limit: rateBody(rate),
      quota: quotaBody(quota),
    };
    api<CreatedKey>('POST', '/api-keys', body).then(
      ({ data }) => setCreated(data),
      (e) => setError(messageOf(e)),
    );
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
          {EXPIRY.map((x) => (
            <option key={x.days} value={x.days}>
              {x.label}
            </option>
          ))}
        </select>
        <RateLimitFields value={rate} onChange={setRate} />
        <QuotaFields value={quota} onChange={setQuota} />
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="submit">Create key</button>
          <a class="button secondary" href="#/keys">
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}
