import { useEffect, useState } from 'preact/hooks';
import { api, McpConnection, McpServer } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { shortDate } from '../format';

const STATES: Record<McpConnection['state'], string> = {
  not_connected: 'Not connected',
  pending: 'Connecting…',
  connected: 'Connected',
  failed: 'Failed: connect again',
};

/**
 * #/servers/<id>/connect: the page a tool error on /mcp sends a user to.
 * For a user_secret server, stores the user's own secret (never shown again)
 * or forgets it; for an oauth server, sends the browser to the upstream's
 * authorization server (it comes back through #/connections/callback); other
 * auth types say what they need.
 */
export function ServerConnectPage({ id }: { id: string }) {
  const [server, setServer] = useState<McpServer | null>(null);
  const [connection, setConnection] = useState<McpConnection | null>(null);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(messageOf(e));
  const path = `/mcp-servers/${encodeURIComponent(id)}`;
  const load = () =>
    Promise.all([api<McpServer>('GET', path), api<McpConnection>('GET', `${path}/connection`)]).then(([s, c]) => {
      setServer(s.data);
      setConnection(c.data);
    }, fail);
  useEffect(() => void load(), [id]);

  const connect = (event: Event) => {
    event.preventDefault();
    setError(null);
    api<McpConnection>('POST', `${path}/connection`, { secret }).then(({ data }) => {
      setSecret('');
      setConnection(data);
    }, fail);
  };
  const authorize = () => {
    setError(null);
    api<{ authorization_url: string }>('POST', `${path}/connection`, {}).then(({ data }) => location.assign(data.authorization_url), fail);
  };
  const disconnect = () => api('DELETE', `${path}/connection`).then(load, fail);

  if (server === null || connection === null) return error ? <ErrorNote error={error} /> : <p class="muted">Loading…</p>;
  return (
    <section aria-labelledby="connect-title">
      <h1 id="connect-title">Connect to {server.name}</h1>
      <p class="mono small">{server.url}</p>
      <p>
        <strong>
          {STATES[connection.state]}
          {connection.state === 'connected' && connection.account && ` as ${connection.account}`}
        </strong>
        {connection.updated_at && <span class="muted"> · since {shortDate(connection.updated_at)}</span>}
      </p>
      <ErrorNote error={error} />
      {connection.auth_type === 'oauth' ? (
        <div class="form" aria-label="Authorize at the server">
          {connection.state === 'connected' && connection.scopes.length > 0 && (
            <p class="muted small">
              Granted: <span class="mono">{connection.scopes.join(' ')}</span>
              {connection.expires_at && <> · token renewed before {shortDate(connection.expires_at)}</>}
            </p>
          )}
          <p class="muted small">
            You sign in at the server's own authorization server; keygate keeps the tokens it grants, encrypted, for your calls only.
          </p>
          <div class="buttons">
            <button type="button" onClick={authorize}>
              {connection.state === 'connected' ? 'Connect again' : 'Connect'}
            </button>
            {connection.state !== 'not_connected' && (
              <button type="button" class="danger" onClick={() => void disconnect()}>
                Disconnect
              </button>
            )}
            <a class="button secondary" href="#/servers">
              Back to servers
            </a>
          </div>
        </div>
      ) : connection.auth_type !== 'user_secret' ? (
        <p class="muted">
          {connection.auth_type === 'static'
            ? 'This server uses its own headers, shared by every caller: there is nothing to connect.'
            : `This server uses ${connection.auth_type} auth, which the console cannot connect yet.`}
        </p>
      ) : (
        <form onSubmit={connect} class="form" aria-label="Store your secret">
          <label for="connect-secret">Your secret</label>
          <input
            id="connect-secret"
            type="password"
            autoComplete="off"
            required
            maxLength={4096}
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
          <p class="muted small">Sent on your own calls of this server's tools only; stored encrypted and never shown again.</p>
          <div class="buttons">
            <button type="submit">{connection.state === 'connected' ? 'Replace secret' : 'Connect'}</button>
            {connection.state !== 'not_connected' && (
              <button type="button" class="danger" onClick={() => void disconnect()}>
                Disconnect
              </button>
            )}
            <a class="button secondary" href="#/servers">
              Back to servers
            </a>
          </div>
        </form>
      )}
    </section>
  );
}
