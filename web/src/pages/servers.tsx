import { useEffect, useState } from 'preact/hooks';
import { api, McpConnection, McpServer } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { shortDate } from '../format';
import { nextPageOf } from '../paging';
import { ServerForm } from './server-form';

const FIRST_PAGE = '/mcp-servers?limit=50';

interface Awaiting {
  server: McpServer;
  name: string;
  approved: string;
  seen: string;
}

function awaitingOf(servers: McpServer[]): Awaiting[] {
  return servers.flatMap((server) =>
    Object.entries(server.tool_pins ?? {})
      .filter(([, pin]) => pin.status === 'changed' && pin.seen_sha256)
      .map(([name, pin]) => ({ server, name, approved: pin.sha256, seen: pin.seen_sha256! })),
  );
}

/** A per-user server's connection at a glance ("Connected as …"), and the way to its connect page. */
function ConnectionLink({ server }: { server: McpServer }) {
  const [connection, setConnection] = useState<McpConnection | null>(null);
  useEffect(() => {
    api<McpConnection>('GET', `/mcp-servers/${server.id}/connection`).then(
      ({ data }) => setConnection(data),
      () => setConnection(null),
    );
  }, [server.id, server.updated_at]);
  const connected = connection?.state === 'connected';
  return (
    <>
      {connection && (
        <span class="muted small" data-connection={connection.state}>
          {connected
            ? connection.account
              ? `Connected as ${connection.account}`
              : 'Connected'
            : connection.state === 'failed'
              ? 'Connect again'
              : 'Not connected'}
        </span>
      )}
      <a class="button secondary" href={`#/servers/${server.id}/connect`} aria-label={`Connect ${server.name}`}>
        {connected ? 'Manage' : 'Connect'}
      </a>
    </>
  );
}

export function ServersPage() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<McpServer | 'new' | null>(null);
  const fail = (e: unknown) => setError(messageOf(e));
  const load = () =>
    api<McpServer[]>('GET', FIRST_PAGE).then(({ data, headers }) => {
      setServers(data);
      setNext(nextPageOf(headers, '/mcp-servers'));
    }, fail);
  const more = () =>
    next &&
    api<McpServer[]>('GET', next).then(({ data, headers }) => {
      setServers((shown) => [...(shown ?? []), ...data.filter((s) => !shown?.some((t) => t.id === s.id))]);
      setNext(nextPageOf(headers, '/mcp-servers'));
    }, fail);
  useEffect(() => void load(), []);
  // The exact hash inspected is sent: if the upstream changed again meanwhile, the API refuses and approves nothing,
  // and the reload shows the hash now seen.
  const approve = (a: Awaiting) =>
    api('POST', `/mcp-servers/${a.server.id}/approve-tools`, { tools: [{ name: a.name, sha256: a.seen }] })
      .then(() => setError(null), fail)
      .then(load);
  const remove = (server: McpServer) => api('DELETE', `/mcp-servers/${server.id}`).then(load, fail);
  const awaiting = awaitingOf(servers ?? []);

  return (
    <section aria-labelledby="servers-title">
      <div class="page-head">
        <h1 id="servers-title">Upstream MCP servers</h1>
        <button type="button" onClick={() => setEditing('new')}>
          Add server
        </button>
      </div>
      <ErrorNote error={error} />
      {editing && (
        <ServerForm
          key={editing === 'new' ? 'new' : editing.id}
          server={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            void load();
          }}
        />
      )}
      {servers === null ? (
        <p class="muted">Loading…</p>
      ) : servers.length === 0 ? (
        <p>No upstream servers yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Headers</th>
                <th scope="col">Scope rules</th>
                <th scope="col">Pinned tools</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {servers.map((s) => (
                <tr key={s.id}>
                  <td>{s.name}</td>
                  <td class="mono small">{s.url}</td>
                  <td>{Object.keys(s.headers).join(', ') || '—'}</td>
                  <td>{ruleCount(s)}</td>
                  <td>{Object.keys(s.tool_pins ?? {}).length}</td>
                  <td>{shortDate(s.updated_at)}</td>
                  <td class="actions">
                    {(s.auth.type === 'user_secret' || s.auth.type === 'oauth') && <ConnectionLink server={s} />}
                    <button type="button" class="secondary" onClick={() => setEditing(s)} aria-label={`Edit ${s.name}`}>
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => void remove(s)} aria-label={`Delete ${s.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <p>
          <button type="button" class="secondary" onClick={() => void more()}>
            Show more servers
          </button>
        </p>
      )}
      <h2>Tools awaiting approval</h2>
      {next && <p class="muted">Of the servers shown; more follow.</p>}
      {awaiting.length === 0 ? (
        <p class="muted">None: every pinned tool is as approved.</p>
      ) : (
        <ul class="plain">
          {awaiting.map((a) => (
            <li key={`${a.server.id}/${a.name}`}>
              <code>
                {a.server.name}__{a.name}
              </code>{' '}
              changed its definition: approved <span class="mono small">{a.approved.slice(0, 12)}…</span>, now{' '}
              <span class="mono small">{a.seen.slice(0, 12)}…</span>. It is withheld from /mcp until approved.{' '}
              <button type="button" onClick={() => void approve(a)} aria-label={`Approve ${a.name} of ${a.server.name}`}>
                Approve
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ruleCount(s: McpServer): string {
  const count = (m: Record<string, string[]> | undefined) => Object.keys(m ?? {}).length;
  const parts = [
    [count(s.tool_scopes), 'tool'],
    [count(s.resource_scopes), 'resource'],
    [count(s.prompt_scopes), 'prompt'],
  ] as const;
  return (
    parts
      .filter(([n]) => n > 0)
      .map(([n, what]) => `${n} ${what}${n === 1 ? '' : 's'}`)
      .join(', ') || '—'
  );
}
