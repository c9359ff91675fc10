import { useEffect, useRef, useState } from 'preact/hooks';
import { api, Approval } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { relativeTime, shortDate } from '../format';

/**
 * The held tool calls the signed-in user may decide. A call a `require_approval` rule holds names
 * `#/approvals/<id>`: that one is shown first and marked, or said plainly to be gone.
 */
export function ApprovalsPage({ focus }: { focus?: string }) {
  const [approvals, setApprovals] = useState<Approval[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const focused = useRef<HTMLHeadingElement>(null);
  const load = () =>
    api<Approval[]>('GET', '/approvals').then(
      ({ data }) => setApprovals(data),
      (e) => setError(messageOf(e)),
    );
  useEffect(() => {
    setApprovals(null);
    setDone(null);
    void load();
  }, [focus]);
  const target = approvals?.find((a) => a.id === focus);
  useEffect(() => focused.current?.focus(), [target?.id]);

  const decide = (a: Approval, verdict: 'approve' | 'deny') => {
    setBusy(a.id);
    setError(null);
    api('POST', `/approvals/${a.id}/${verdict}`)
      .then(
        () => {
          setDone(
            verdict === 'approve'
              ? `Approved ${a.tool}: the same call by the same key now runs once.`
              : `Denied ${a.tool}: the same call is refused until the approval expires.`,
          );
          return load();
        },
        (e) => setError(messageOf(e)),
      )
      .finally(() => setBusy(null));
  };

  // The approval the link names comes first.
  const shown = target ? [target, ...(approvals ?? []).filter((a) => a !== target)] : (approvals ?? []);
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <p class="muted">
        Tool calls a rule holds until you say yes. Approving lets the same call, by the same key with the same arguments, run once.
      </p>
      <ErrorNote error={error} />
      {done && (
        <p role="status" class="muted">
          {done}
        </p>
      )}
      {focus && approvals && !target && !done && (
        <p role="status" class="warning">
          The approval this link names is not waiting for you: it was already decided, has expired, or is not yours to decide.
        </p>
      )}
      {approvals === null && !error && <p class="muted">Loading…</p>}
      {approvals?.length === 0 && <p class="muted">No calls are waiting for your approval.</p>}
      {shown.map((a) => {
        const headingId = `approval-${a.id}`;
        return (
          <article key={a.id} class={a.id === focus ? 'card approval focused' : 'card approval'} aria-labelledby={headingId}>
            <h2 id={headingId} tabIndex={a.id === focus ? -1 : undefined} ref={a.id === focus ? focused : undefined}>
              <span class="mono">{a.tool}</span>
              {a.id === focus && <span class="chip">this link</span>}
            </h2>
            <dl class="facts">
              <dt>Server</dt>
              <dd>{a.server || 'built-in'}</dd>
              <dt>Rule</dt>
              <dd>
                {a.rule.message} <span class="muted">(rule {a.rule.index})</span>
              </dd>
              <dt>Key</dt>
              <dd>
                <a href={`#/keys/${a.key_id}`} class="mono">
                  {a.key_id.slice(0, 8)}
                </a>
              </dd>
              <dt>Asked</dt>
              <dd>{relativeTime(a.created_at)}</dd>
              <dt>Expires</dt>
              <dd>
                {relativeTime(a.expires_at)} <span class="muted">({shortDate(a.expires_at)})</span>
              </dd>
            </dl>
            <h3>Arguments</h3>
            {/* Text, never markup: Preact escapes it. */}
            <pre class="arguments" aria-label={`Arguments of ${a.tool}`}>
              {a.arguments === null ? '(too large to show)' : JSON.stringify(a.arguments, null, 2)}
            </pre>
            {a.arguments_truncated && <p class="muted small">Cut short for display; the call runs with its full arguments.</p>}
            <div class="buttons">
              <button type="button" aria-label={`Approve ${a.tool}`} disabled={busy === a.id} onClick={() => decide(a, 'approve')}>
                Approve
              </button>
              <button type="button" class="danger" aria-label={`Deny ${a.tool}`} disabled={busy === a.id} onClick={() => decide(a, 'deny')}>
                Deny
              </button>
            </div>
          </article>
        );
      })}
    </section>
  );
}
