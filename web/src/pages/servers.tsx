import { useEffect, useState } from 'preact/hooks';
import { api, McpServer } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { shortDate } from '../format';

/** "Name: value" lines to a header map; a value left as ******** keeps the stored one (README). */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

const headerText = (headers: Record<string, string>) => Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n');

export function ServersPage() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<McpServer | 'new' | null>(null);
  const load = () => api<McpServer[]>('GET', '/mcp-servers?limit=50').then(({ data }) => setServers(data), (e) => setError(messageOf(e)));
  useEffect(() => void load(), []);
  const approve = (server: McpServer, name: string, sha256: string) =>
    api('POST', `/mcp-servers/${server.id}/approve-tools`, { tools: [{ name, sha256 }] }).then(load, (e) => setError(messageOf(e)));
  const remove = (server: McpServer) => api('DELETE', `/mcp-servers/${server.id}`).then(load, (e) => setError(messageOf(e)));
  const awaiting = (servers ?? []).flatMap((s) => Object.entries(s.tool_pins ?? {})
    .filter(([, pin]) => pin.status === 'changed' && pin.seen_sha256)
    .map(([name, pin]) => ({ server: s, name, sha256: pin.seen_sha256! })));

  return (
    <section aria-labelledby="servers-title">
      <div class="page-head">
        <h1 id="servers-title">Upstream MCP servers</h1>
        <button type="button" onClick={() => setEditing('new')}>Add server</button>
      </div>
      <ErrorNote error={error} />
      {editing && <ServerForm server={editing === 'new' ? null : editing} onDone={() => { setEditing(null); void load(); }} />}
      {servers === null ? <p class="muted">Loading…</p> : servers.length === 0 ? <p>No upstream servers yet.</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Headers</th><th scope="col">Pinned tools</th><th scope="col">Updated</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {servers.map((s) => (
                <tr key={s.id}>
                  <td>{s.name}</td>
                  <td class="mono small">{s.url}</td>
                  <td>{Object.keys(s.headers).join(', ') || '—'}</td>
                  <td>{Object.keys(s.tool_pins ?? {}).length}</td>
                  <td>{shortDate(s.updated_at)}</td>
                  <td class="actions">
                    <button type="button" class="secondary" onClick={() => setEditing(s)} aria-label={`Edit ${s.name}`}>Edit</button>
                    <button type="button" class="danger" onClick={() => remove(s)} aria-label={`Delete ${s.name}`}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Tools awaiting approval</h2>
      {awaiting.length === 0 ? <p class="muted">None: every pinned tool is as approved.</p> : (
        <ul class="plain">
          {awaiting.map((a) => (
            <li key={`${a.server.id}/${a.name}`}>
              <code>{a.server.name}/{a.name}</code> changed its definition (<span class="mono small">{a.sha256.slice(0, 12)}…</span>){' '}
              <button type="button" onClick={() => approve(a.server, a.name, a.sha256)} aria-label={`Approve ${a.name} of ${a.server.name}`}>Approve</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ServerForm({ server, onDone }: { server: McpServer | null; onDone: () => void }) {
  const [name, setName] = useState(server?.name ?? '');
  const [url, setUrl] = useState(server?.url ?? 'https://');
  const [headers, setHeaders] = useState(server ? headerText(server.headers) : '');
  const [error, setError] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const body = { name: name.trim(), url: url.trim(), headers: parseHeaders(headers) };
    const call = server ? api('PATCH', `/mcp-servers/${server.id}`, body) : api('POST', '/mcp-servers', body);
    call.then(onDone, (e) => setError(messageOf(e)));
  };
  return (
    <form class="form card" onSubmit={submit} aria-label={server ? `Edit ${server.name}` : 'Add a server'}>
      <label for="server-name">Name</label>
      <input id="server-name" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="server-url">URL</label>
      <input id="server-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <label for="server-headers">Headers, one "Name: value" per line (values are stored encrypted; ******** keeps a stored value)</label>
      <textarea id="server-headers" rows={3} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} />
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit">{server ? 'Save' : 'Add server'}</button>
        <button type="button" class="secondary" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
