import { useEffect, useState } from 'preact/hooks';
import { api, ApiKey, AuditEvent } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { ScopeChips } from '../components/scope-chips';
import { quotaText, rateText, relativeTime, shortDate } from '../format';

const PAGE = 50;

/** One key and its audit events, newest first (GET /api/v1/audit-events?key_id=…). */
export function KeyDetailPage({ id }: { id: string }) {
  const [key, setKey] = useState<ApiKey | null | undefined>(undefined);
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const more = (after: string | null) => {
    const query = new URLSearchParams({ key_id: id, limit: String(PAGE), ...(after ? { cursor: after } : {}) });
    api<{ events: AuditEvent[]; next_cursor: string | null }>('GET', `/audit-events?${query}`).then(({ data }) => {
      setEvents((old) => (after ? [...old, ...data.events] : data.events));
      setCursor(data.next_cursor);
    }, (e) => setError(messageOf(e)));
  };
  useEffect(() => {
    api<ApiKey[]>('GET', '/api-keys').then(({ data }) => setKey(data.find((k) => k.id === id) ?? null), (e) => setError(messageOf(e)));
    more(null);
  }, [id]);
  return (
    <section aria-labelledby="detail-title">
      <p><a href="#/keys">← All keys</a></p>
      <h1 id="detail-title">{key ? `Key "${key.name}"` : 'Key'}</h1>
      <ErrorNote error={error} />
      {key === null && <p>This key is revoked or not yours; its events are below if you may see them.</p>}
      {key && (
        <dl class="facts">
          <dt>Prefix</dt><dd class="mono">{key.key_prefix}…</dd>
          <dt>Scopes</dt><dd><ScopeChips scopes={key.scopes} /></dd>
          <dt>Created</dt><dd>{shortDate(key.created_at)}</dd>
          <dt>Last used</dt><dd>{relativeTime(key.last_used_at)}</dd>
          <dt>Expires</dt><dd>{shortDate(key.expires_at, 'never')}</dd>
          <dt>Rate limit</dt><dd>{rateText(key.rate_limit)}</dd>
          <dt>Quota</dt><dd>{quotaText(key.quota)}</dd>
        </dl>
      )}
      <h2>Audit events</h2>
      {events.length === 0 ? <p class="muted">No events.</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Details</th></tr></thead>
            <tbody>
              {events.map((event) => (
                <tr key={String(event.id ?? event.seq)}>
                  <td title={shortDate(String(event.occurred_at ?? ''))}>{relativeTime(String(event.occurred_at ?? ''))}</td>
                  <td><code>{event.action}</code></td>
                  <td>{(event.actor as { type?: string } | undefined)?.type ?? ''}</td>
                  <td class="mono small">{JSON.stringify(event.details ?? {}).slice(0, 200)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && <button type="button" class="secondary" onClick={() => more(cursor)}>Older events</button>}
    </section>
  );
}
