import { useEffect, useState } from 'preact/hooks';
import { api, KeyTool, KeyTools } from '../api';
import { ErrorNote, messageOf } from './error-note';

const PAGE = 500;

/** Every tool the built-ins and the owner's servers offer, as the key's tools/list would show it, hidden ones with why. */
export function KeyToolsList({ id, onTools }: { id: string; onTools: (tools: KeyTool[]) => void }) {
  const [tools, setTools] = useState<KeyTool[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const more = (after: string | null) => {
    const query = new URLSearchParams({ limit: String(PAGE), ...(after ? { cursor: after } : {}) });
    api<KeyTools>('GET', `/api-keys/${id}/tools?${query}`).then(
      ({ data }) => {
        setTools((old) => (after && old ? [...old, ...data.tools] : data.tools));
        setCursor(data.next_cursor);
      },
      (e) => setError(messageOf(e)),
    );
  };
  useEffect(() => more(null), [id]);
  useEffect(() => {
    if (tools) onTools(tools);
  }, [tools]);
  return (
    <>
      <h3>Tools</h3>
      <ErrorNote error={error} />
      {tools === null ? (
        <p class="muted">Loading…</p>
      ) : tools.length === 0 ? (
        <p class="muted">No tools offered.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Tools of this key">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">From</th>
                <th scope="col">Listed</th>
                <th scope="col">Why not</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((tool) => (
                <tr key={tool.name}>
                  <td>
                    <code>{tool.name}</code>
                  </td>
                  <td>{tool.server ?? 'built-in'}</td>
                  <td>{tool.visible ? 'visible' : `hidden by ${tool.hidden_by ?? 'policy'}`}</td>
                  <td>{tool.visible ? '—' : (tool.reason ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => more(cursor)}>
          More tools
        </button>
      )}
    </>
  );
}
