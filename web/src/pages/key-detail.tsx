import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, ApiKey, AuditEvent, AuditPage, KeyTool } from '../api';
import { EditKeyForm } from '../components/edit-key-form';
import { ErrorNote, messageOf } from '../components/error-note';
import { ExplainForm } from '../components/explain-form';
import { KeyToolsList } from '../components/key-tools';
import { KeyUsage } from '../components/key-usage';
import { ScopeChips } from '../components/scope-chips';
import { expiryText, quotaText, rateText, relativeTime, shortDate } from '../format';

const PAGE = 50;

/** One key by id (GET /api/v1/api-keys/:id, revoked ones too), its edit form, its usage and its audit events, newest first. */
export function KeyDetailPage({ id }: { id: string }) {
  const [key, setKey] = useState<ApiKey | null | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<ApiKey>('GET', `/api-keys/${id}`).then(
      ({ data }) => setKey(data),
      (e) => {
        setKey(null);
        setError(e instanceof ApiError && e.status === 404 ? 'No key with this id, or it is not yours.' : messageOf(e));
      },
    );
  useEffect(() => {
    setEditing(false);
    setSaved(null);
    setError(null);
    void load();
  }, [id]);

  const onSaved = (updated: ApiKey, changed: string[]) => {
    setKey(updated);
    setEditing(false);
    setSaved(`Saved: ${changed.map((field) => field.replace('_', ' ')).join(', ')}.`);
  };
  return (
    <section aria-labelledby="detail-title">
      <p>
        <a href="#/keys">← All keys</a>
      </p>
      <h1 id="detail-title">{key ? `Key "${key.name}"` : 'Key'}</h1>
      <ErrorNote error={error} />
      <p role="status" class="muted">
        {saved}
      </p>
      {key && <KeyState apiKey={key} />}
      {key && (
        <dl class="facts">
          <dt>Prefix</dt>
          <dd class="mono">{key.key_prefix}…</dd>
          <dt>Scopes</dt>
          <dd>
            <ScopeChips scopes={key.scopes} />
          </dd>
          <dt>Created</dt>
          <dd>{shortDate(key.created_at)}</dd>
          <dt>Last used</dt>
          <dd title={shortDate(key.last_used_at)}>{relativeTime(key.last_used_at)}</dd>
          <dt>Expires</dt>
          <dd title={shortDate(key.expires_at, 'never')}>{expiryText(key)}</dd>
          <dt>Rate limit</dt>
          <dd>{rateText(key.rate_limit)}</dd>
          <dt>Quota</dt>
          <dd>{quotaText(key.quota)}</dd>
        </dl>
      )}
      {key && !key.revoked_at && !key.replaced_by && !editing && (
        <div class="buttons">
          <button
            type="button"
            onClick={() => {
              setSaved(null);
              setEditing(true);
            }}
          >
            Edit key
          </button>
        </div>
      )}
      {key && editing && <EditKeyForm apiKey={key} onSaved={onSaved} onCancel={() => setEditing(false)} />}
      {key && <KeyUsage id={id} />}
      {key && <WhyNot key={`${id} ${saved ?? ''}`} id={id} />}
      {/* Keyed by what was saved, so a save reloads the trail with its key.updated on top. */}
      <KeyEvents key={`${id} ${saved ?? ''}`} id={id} />
    </section>
  );
}

function WhyNot({ id }: { id: string }) {
  const [tools, setTools] = useState<KeyTool[]>([]);
  return (
    <section aria-labelledby="why-not-title">
      <h2 id="why-not-title">Why can't this key use …?</h2>
      <KeyToolsList id={id} onTools={setTools} />
      <h3>Explain a call</h3>
      <ExplainForm id={id} tools={tools} />
    </section>
  );
}

function KeyState({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.revoked_at)
    return (
      <p class="warning">
        Revoked {relativeTime(apiKey.revoked_at)} ({shortDate(apiKey.revoked_at)}): every request with it is refused.
      </p>
    );
  if (apiKey.replaced_by) {
    return (
      <p class="warning">
        Rolled: replaced by <a href={`#/keys/${apiKey.replaced_by}`}>its new key</a>; this one {expiryText(apiKey).replace('rolled, ', '')}.
      </p>
    );
  }
  return null;
}

function KeyEvents({ id }: { id: string }) {
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const more = (after: string | null) => {
    const query = new URLSearchParams({ key_id: id, limit: String(PAGE), ...(after ? { cursor: after } : {}) });
    api<AuditPage>('GET', `/audit-events?${query}`).then(
      ({ data }) => {
        setEvents((old) => (after && old ? [...old, ...data.events] : data.events));
        setCursor(data.next_cursor);
      },
      (e) => setError(messageOf(e)),
    );
  };
  useEffect(() => more(null), [id]);
  return (
    <>
      <h2>Audit events</h2>
      <ErrorNote error={error} />
      {events === null ? (
        <p class="muted">Loading…</p>
      ) : events.length === 0 ? (
        <p class="muted">No events.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Audit events, newest first">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={String(event.id ?? event.seq)}>
                  <td title={shortDate(String(event.occurred_at ?? ''))}>{relativeTime(String(event.occurred_at ?? ''))}</td>
                  <td>
                    <code>{event.action}</code>
                  </td>
                  <td>{(event.actor as { type?: string } | undefined)?.type ?? ''}</td>
                  <td class="mono small">{JSON.stringify(event.details ?? {}).slice(0, 200)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => more(cursor)}>
          Older events
        </button>
      )}
    </>
  );
}
