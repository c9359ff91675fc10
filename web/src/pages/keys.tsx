import { useEffect, useState } from 'preact/hooks';
import { api, ApiKey, CreatedKey } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { Modal } from '../components/modal';
import { ScopeChips } from '../components/scope-chips';
import { SecretOnce } from '../components/secret-once';
import { expiryText, quotaText, rateText, relativeTime, shortDate } from '../format';

const GRACE = [
  { seconds: 0, label: 'None: the old key stops now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86400, label: '1 day' },
  { seconds: 7 * 86400, label: '7 days' },
  { seconds: 30 * 86400, label: '30 days (the most)' },
];

/**
 * The API answers a user's whole list at once (at most MAX_KEYS_PER_USER keys, plus rolled ones in their
 * grace), so the console pages it here rather than the API by cursor.
 */
const PAGE = 25;

export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rolled, setRolled] = useState<CreatedKey | null>(null);
  const [page, setPage] = useState(0);
  const load = () =>
    api<ApiKey[]>('GET', '/api-keys').then(
      ({ data }) => setKeys(data),
      (e) => setError(messageOf(e)),
    );
  useEffect(() => void load(), []);

  const pages = Math.max(1, Math.ceil((keys?.length ?? 0) / PAGE));
  const shown = Math.min(page, pages - 1);
  if (rolled) {
    return (
      <SecretOnce
        title={`Key "${rolled.name}" rolled`}
        rawKey={rolled.raw_key}
        onDone={() => {
          setRolled(null);
          void load();
        }}
      />
    );
  }
  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
        <a class="button" href="#/keys/new">
          Create key
        </a>
      </div>
      <ErrorNote error={error} />
      {keys === null ? (
        <p class="muted">Loading…</p>
      ) : keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Rate limit</th>
                <th scope="col">Quota</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.slice(shown * PAGE, (shown + 1) * PAGE).map((key) => (
                <tr key={key.id}>
                  <td>
                    <a href={`#/keys/${key.id}`}>{key.name}</a>
                  </td>
                  <td class="mono">{key.key_prefix}…</td>
                  <td>
                    <ScopeChips scopes={key.scopes} />
                  </td>
                  <td>{shortDate(key.created_at)}</td>
                  <td title={shortDate(key.last_used_at)}>{relativeTime(key.last_used_at)}</td>
                  <td title={shortDate(key.expires_at, 'never')}>{expiryText(key)}</td>
                  <td>{rateText(key.rate_limit)}</td>
                  <td>{quotaText(key.quota)}</td>
                  <td class="actions">
                    {/* A rolled key cannot be rolled again (409); its label tells it from its successor of the same name. */}
                    {!key.replaced_by && (
                      <button type="button" class="secondary" onClick={() => setRolling(key)} aria-label={`Roll ${key.name}`}>
                        Roll
                      </button>
                    )}
                    <button
                      type="button"
                      class="danger"
                      onClick={() => setRevoking(key)}
                      aria-label={`Revoke ${key.name}${key.replaced_by ? ' (rolled)' : ''}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {keys && pages > 1 && (
        <nav class="pager" aria-label="Pages of keys">
          <button type="button" class="secondary" disabled={shown === 0} onClick={() => setPage(shown - 1)}>
            Previous
          </button>
          <span aria-live="polite">
            Keys {shown * PAGE + 1}–{Math.min(keys.length, (shown + 1) * PAGE)} of {keys.length}
          </span>
          <button type="button" class="secondary" disabled={shown === pages - 1} onClick={() => setPage(shown + 1)}>
            Next
          </button>
        </nav>
      )}
      {rolling && (
        <RollDialog
          apiKey={rolling}
          onClose={() => setRolling(null)}
          onRolled={(k) => {
            setRolling(null);
            setRolled(k);
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setRevoking(null);
            void load();
          }}
        />
      )}
    </section>
  );
}

function RollDialog({ apiKey, onClose, onRolled }: { apiKey: ApiKey; onClose: () => void; onRolled: (key: CreatedKey) => void }) {
  const [grace, setGrace] = useState(3600);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    api<CreatedKey>('POST', `/api-keys/${apiKey.id}/roll`, { grace_seconds: grace }).then(
      ({ data }) => onRolled(data),
      (e) => setError(messageOf(e)),
    );
  };
  return (
    <Modal title={`Roll "${apiKey.name}"`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>A new key replaces this one with the same name, scopes, expiry and limits.</p>
        <label for="grace">Grace period: how long the old key keeps working</label>
        <select id="grace" value={grace} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
          {GRACE.map((g) => (
            <option key={g.seconds} value={g.seconds}>
              {g.label}
            </option>
          ))}
        </select>
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="submit">Roll key</button>
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

function RevokeDialog({ apiKey, onClose, onRevoked }: { apiKey: ApiKey; onClose: () => void; onRevoked: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const revoke = () => api<null>('DELETE', `/api-keys/${apiKey.id}`).then(onRevoked, (e) => setError(messageOf(e)));
  return (
    <Modal title={`Revoke "${apiKey.name}"?`} onClose={onClose}>
      <p>
        Every client using <span class="mono">{apiKey.key_prefix}…</span> is refused at once. This cannot be undone.
      </p>
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="button" class="danger" onClick={() => void revoke()}>
          Revoke key
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
