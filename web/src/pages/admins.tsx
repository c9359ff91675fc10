import { useEffect, useState } from 'preact/hooks';
import { AgentRole, api, ModeToolConfig } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { ScopeChips } from '../components/scope-chips';
import { Access, ScopePicker, scopesOf } from '../components/scope-picker';

/** Agent roles and mode tool configurations: anyone may read them, only admins change them (the API says 403 otherwise). */
export function AdminsPage() {
  const [roles, setRoles] = useState<AgentRole[] | null>(null);
  const [modes, setModes] = useState<ModeToolConfig[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState<'role' | 'mode' | null>(null);
  const fail = (e: unknown) => setError(messageOf(e));
  const load = () => {
    api<AgentRole[]>('GET', '/agent-roles').then(({ data }) => setRoles(data), fail);
    api<ModeToolConfig[]>('GET', '/mode-tool-configs').then(({ data }) => setModes(data), fail);
  };
  useEffect(load, []);
  const done = () => { setAdding(null); load(); };
  return (
    <section aria-labelledby="admins-title">
      <h1 id="admins-title">Agent roles and modes</h1>
      <ErrorNote error={error} />
      <div class="page-head">
        <h2>Agent roles</h2>
        <button type="button" onClick={() => setAdding('role')}>Add role</button>
      </div>
      {adding === 'role' && <ScopedForm kind="role" onDone={done} />}
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Platform scopes</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {(roles ?? []).map((r) => (
              <tr key={r.id}>
                <td>{r.name}{r.is_system && <span class="chip">system</span>}</td>
                <td>{r.description ?? ''}</td>
                <td><ScopeChips scopes={r.platform_scopes} /></td>
                <td class="actions">{!r.is_system && (
                  <button type="button" class="danger" aria-label={`Delete role ${r.name}`} onClick={() => api('DELETE', `/agent-roles/${r.id}`).then(load, fail)}>Delete</button>
                )}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="page-head">
        <h2>Mode tool configurations</h2>
        <button type="button" onClick={() => setAdding('mode')}>Add mode</button>
      </div>
      {adding === 'mode' && <ScopedForm kind="mode" onDone={done} />}
      {modes && modes.length === 0 ? <p class="muted">No modes yet.</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Mode</th><th scope="col">Additional scopes</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {(modes ?? []).map((m) => (
                <tr key={m.id}>
                  <td>{m.mode}</td>
                  <td><ScopeChips scopes={m.additional_scopes} /></td>
                  <td class="actions"><button type="button" class="danger" aria-label={`Delete mode ${m.mode}`} onClick={() => api('DELETE', `/mode-tool-configs/${m.id}`).then(load, fail)}>Delete</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ScopedForm({ kind, onDone }: { kind: 'role' | 'mode'; onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [scopes, setScopes] = useState<Record<string, Access>>({});
  const [error, setError] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const call = kind === 'role'
      ? api('POST', '/agent-roles', { name: name.trim(), description: description.trim() || null, platform_scopes: scopesOf(scopes) })
      : api('POST', '/mode-tool-configs', { mode: name.trim(), additional_scopes: scopesOf(scopes) });
    call.then(onDone, (e) => setError(messageOf(e)));
  };
  return (
    <form class="form card" onSubmit={submit} aria-label={kind === 'role' ? 'Add a role' : 'Add a mode'}>
      <label for={`${kind}-name`}>{kind === 'role' ? 'Role name' : 'Mode'}</label>
      <input id={`${kind}-name`} required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      {kind === 'role' && <>
        <label for="role-description">Description</label>
        <input id="role-description" maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </>}
      <ScopePicker value={scopes} onChange={setScopes} />
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit">Save</button>
        <button type="button" class="secondary" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
