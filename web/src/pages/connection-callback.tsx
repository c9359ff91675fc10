import { useEffect, useState } from 'preact/hooks';
import { api, McpConnection } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { takeConnectionCallback } from '../connection-callback';

/** #/connections/callback: completes an oauth connection as the signed-in user, then shows the server's connect page. */
export function ConnectionCallbackPage() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const callback = takeConnectionCallback();
    if (callback === null) return void setError('Nothing to complete here: start from a server’s Connect button.');
    api<McpConnection>('POST', '/mcp-servers/connections/callback', callback).then(
      ({ data }) => location.replace(`#/servers/${data.server_id}/connect`),
      (e) => setError(messageOf(e)),
    );
  }, []);
  return (
    <section aria-labelledby="callback-title">
      <h1 id="callback-title">Connecting…</h1>
      <ErrorNote error={error} />
      {error && (
        <a class="button secondary" href="#/servers">
          Back to servers
        </a>
      )}
    </section>
  );
}
