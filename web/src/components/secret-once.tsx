import { useState } from 'preact/hooks';

/** A raw key, shown this once: the service keeps only its hash. */
export function SecretOnce({ title, rawKey, onDone }: { title: string; rawKey: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () =>
    navigator.clipboard.writeText(rawKey).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title">{title}</h2>
      <p class="warning" role="alert">
        Copy this key now. It is shown only once: keygate stores only its hash and cannot show it again.
      </p>
      <label for="raw-key">New key</label>
      <div class="secret-row">
        <input id="raw-key" class="mono" readOnly value={rawKey} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p aria-live="polite" class="muted">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copy failed: select the key and copy it by hand.' : ''}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have stored the key
      </button>
    </section>
  );
}
