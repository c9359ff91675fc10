import { useEffect, useState } from 'preact/hooks';
import { AgentRole, api, ModeToolConfig } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { ScopeChips } from '../components/scope-chips';
import { ScopedForm, ScopedItem } from './scoped-form';

/** Agent roles and mode tool configurations, for admins (main.tsx shows it to them only; the API decides every change). */
export function AdminsPage() {
  const [roles, setRoles] = useState<AgentRole[] | null>(null);
  const [modes, setModes] = useState<ModeToolConfig[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<ScopedItem | null>(null);
  const fail = (e: unknown) => setError(messageOf(e));
  const load = () => {
    api<AgentRole[]>('GET', '/agent-roles').then(({ data }) => setRoles(data), fail);
    api<ModeToolConfig[]>('GET', '/mode-tool-configs').then(({ data }) => setModes(data), fail);
  };
  useEffect(load, []);
  const done = () => {
    setForm(null);
    load();
  };
  const formKey = (f: ScopedItem) => `${f.kind}/${f.item?.id ?? 'new'}`;
  return (
    <section aria-labelledby="admins-title">
      <h1 id="admins-title">Agent roles and modes</h1>
      <ErrorNote error={error} />
      <div class="page-head">
        <h2>Agent roles</h2>
        <button type="button" onClick={() => setForm({ kind: 'role', item: null })}>
          Add role
        </button>
      </div>
      {form?.kind === 'role' && <ScopedForm key={formKey(form)} target={form} onDone={done} />}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Platform scopes</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(roles ?? []).map((r) => (
              <tr key={r.id}>
                <td>
                  {r.name}
                  {r.is_system && <span class="chip">system</span>}
                </td>
                <td>{r.description ?? ''}</td>
                <td>
                  <ScopeChips scopes={r.platform_scopes} />
                </td>
                <td class="actions">
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Edit role ${r.name}`}
                    onClick={() => setForm({ kind: 'role', item: r })}
                  >
                    Edit
                  </button>
                  {!r.is_system && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete role ${r.name}`}
                      onClick={() => void api('DELETE', `/agent-roles/${r.id}`).then(load, fail)}
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="page-head">
        <h2>Mode tool configurations</h2>
        <button type="button" onClick={() => setForm({ kind: 'mode', item: null })}>
          Add mode
        </button>
      </div>
      {form?.kind === 'mode' && <ScopedForm key={formKey(form)} target={form} onDone={done} />}
      {modes && modes.length === 0 ? (
        <p class="muted">No modes yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Mode</th>
                <th scope="col">Additional scopes</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(modes ?? []).map((m) => (
                <tr key={m.id}>
                  <td>{m.mode}</td>
                  <td>
                    <ScopeChips scopes={m.additional_scopes} />
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit mode ${m.mode}`}
                      onClick={() => setForm({ kind: 'mode', item: m })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete mode ${m.mode}`}
                      onClick={() => void api('DELETE', `/mode-tool-configs/${m.id}`).then(load, fail)}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
