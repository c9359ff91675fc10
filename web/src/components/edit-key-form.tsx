import { useState } from 'preact/hooks';
import { api, ApiKey, UpdateKeyBody } from '../api';
import { shortDate } from '../format';
import { ErrorNote, messageOf } from './error-note';
import { quotaBody, quotaChoiceOf, QuotaFields, rateBody, rateChoiceOf, RateLimitFields } from './limit-fields';
import { choiceOf, ScopePicker, scopesOf } from './scope-picker';

const EXPIRY = [
  { value: 'never', label: 'Never' },
  { value: '7', label: '7 days from now' },
  { value: '30', label: '30 days from now' },
  { value: '90', label: '90 days from now' },
  { value: '365', label: '1 year from now' },
];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sorted = (scopes: string[]) => [...scopes].sort();

/**
 * PATCH /api/v1/api-keys/:id with the fields the user changed, and only those: sending a quota sets its
 * balance, and an unchanged expiry that has passed would be refused.
 */
export function EditKeyForm({
  apiKey,
  onSaved,
  onCancel,
}: {
  apiKey: ApiKey;
  onSaved: (key: ApiKey, changed: string[]) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(apiKey.name);
  const [scopes, setScopes] = useState(() => choiceOf(apiKey.scopes));
  const [expiry, setExpiry] = useState('keep');
  const [rate, setRate] = useState(() => rateChoiceOf(apiKey.rate_limit));
  const [quota, setQuota] = useState(() => quotaChoiceOf(apiKey.quota));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const changes = (): UpdateKeyBody => {
    const body: UpdateKeyBody = {};
    if (name.trim() !== apiKey.name) body.name = name.trim();
    if (!same(sorted(scopesOf(scopes)), sorted(scopesOf(choiceOf(apiKey.scopes))))) body.scopes = scopesOf(scopes);
    if (expiry === 'never' && apiKey.expires_at !== null) body.expires_at = null;
    if (expiry !== 'keep' && expiry !== 'never') body.expires_at = new Date(Date.now() + Number(expiry) * 86400_000).toISOString();
    if (!same(rateBody(rate), rateBody(rateChoiceOf(apiKey.rate_limit)))) body.rate_limit = rateBody(rate);
    if (!same(quotaBody(quota), quotaBody(quotaChoiceOf(apiKey.quota)))) body.quota = quotaBody(quota);
    return body;
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const body = changes();
    if (Object.keys(body).length === 0) return setError('Nothing changed.');
    setError(null);
    setBusy(true);
    api<ApiKey>('PATCH', `/api-keys/${apiKey.id}`, body).then(
      ({ data }) => onSaved(data, Object.keys(body)),
      (e) => {
        setBusy(false);
        setError(messageOf(e));
      },
    );
  };
  return (
    <form onSubmit={submit} class="form card" aria-labelledby="edit-title">
      <h2 id="edit-title">Edit key</h2>
      <label for="edit-name">Name</label>
      <input id="edit-name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <ScopePicker value={scopes} onChange={setScopes} />
      <label for="edit-expiry">Expires</label>
      <select id="edit-expiry" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
        <option value="keep">Unchanged ({shortDate(apiKey.expires_at, 'never')})</option>
        {EXPIRY.map((x) => (
          <option key={x.value} value={x.value}>
            {x.label}
          </option>
        ))}
      </select>
      <RateLimitFields value={rate} onChange={setRate} />
      <QuotaFields value={quota} onChange={setQuota} note="Saving a changed quota sets the balance to this number of calls." />
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          Save changes
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
