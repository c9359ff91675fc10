import { useState } from 'preact/hooks';
import { AgentRole, api, ModeToolConfig } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { Access, choiceOf, ScopePicker, scopesOf } from '../components/scope-picker';

export type ScopedItem = { kind: 'role'; item: AgentRole | null } | { kind: 'mode'; item: ModeToolConfig | null };

const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** The role's or mode's fields for POST, or for PATCH only those that changed. */
function bodyOf(target: ScopedItem, name: string, description: string, scopes: string[]): Record<string, unknown> {
  if (target.kind === 'role') {
    const body = { name, description: description || null, platform_scopes: scopes };
    const was = target.item;
    if (!was) return body;
    return {
      ...(name !== was.name && { name }),
      ...(body.description !== was.description && { description: body.description }),
      ...(!same(scopes, was.platform_scopes) && { platform_scopes: scopes }),
    };
  }
  const was = target.item;
  if (!was) return { mode: name, additional_scopes: scopes };
  return { ...(name !== was.mode && { mode: name }), ...(!same(scopes, was.additional_scopes) && { additional_scopes: scopes }) };
}

/** Adds or edits an agent role or a mode tool configuration; the API keeps both to admins (403 otherwise). */
export function ScopedForm({ target, onDone }: { target: ScopedItem; onDone: () => void }) {
  const role = target.kind === 'role' ? target.item : null;
  const mode = target.kind === 'mode' ? target.item : null;
  const [name, setName] = useState(role?.name ?? mode?.mode ?? '');
  const [description, setDescription] = useState(role?.description ?? '');
  const [scopes, setScopes] = useState<Record<string, Access>>(choiceOf(role?.platform_scopes ?? mode?.additional_scopes ?? []));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editing = target.item !== null;
  const path = target.kind === 'role' ? '/agent-roles' : '/mode-tool-configs';
  const submit = (event: Event) => {
    event.preventDefault();
    const body = bodyOf(target, name.trim(), description.trim(), scopesOf(scopes));
    if (editing && Object.keys(body).length === 0) return onDone();
    setBusy(true);
    const call = editing ? api('PATCH', `${path}/${target.item!.id}`, body) : api('POST', path, body);
    call.then(onDone, (e) => {
      setBusy(false);
      setError(messageOf(e));
    });
  };
  const what = target.kind === 'role' ? 'role' : 'mode';
  const title = editing ? `Edit ${what} ${role?.name ?? mode?.mode}` : `Add a ${what}`;
  return (
    <form class="form card" onSubmit={submit} aria-label={title}>
      <h3 class="form-title">{title}</h3>
      <label for={`${target.kind}-name`}>{target.kind === 'role' ? 'Role name' : 'Mode'}</label>
      <input id={`${target.kind}-name`} required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      {target.kind === 'role' && (
        <>
          <label for="role-description">Description</label>
          <input id="role-description" maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </>
      )}
      {role?.is_system && <p class="muted small">A system role: it can be edited, not deleted.</p>}
      {target.kind === 'mode' && <p class="muted small">A mode must list at least one scope: it widens a role while a session lasts.</p>}
      <ScopePicker value={scopes} onChange={setScopes} />
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          Save
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
