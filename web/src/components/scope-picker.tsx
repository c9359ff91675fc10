import { useEffect, useState } from 'preact/hooks';
import { api, Scope, ScopeInfo } from '../api';
import { ErrorNote, messageOf } from './error-note';

export type Access = 'none' | 'read' | 'write';

/** The smallest scope list for the choice: a resource's `:write` already grants its `:read` (spec 4.5). */
export function scopesOf(choice: Record<string, Access>): Scope[] {
  // The picker offers the catalog's resources only, so each pair is a catalog scope.
  return Object.entries(choice)
    .filter(([, a]) => a !== 'none')
    .map(([resource, a]) => `${resource}:${a}` as Scope);
}

/** The picker's choice for a stored scope list (the inverse of scopesOf): a resource's `:write` wins over its `:read`; anything else is skipped. */
export function choiceOf(scopes: readonly string[]): Record<string, Access> {
  const choice: Record<string, Access> = {};
  for (const scope of scopes) {
    const [resource, permission] = scope.split(':');
    if (!resource || (permission !== 'read' && permission !== 'write')) continue;
    if (choice[resource] !== 'write') choice[resource] = permission;
  }
  return choice;
}

/** Read and write toggles per resource, from GET /api/v1/scopes; checking write checks (and locks) read. */
export function ScopePicker({ value, onChange }: { value: Record<string, Access>; onChange: (next: Record<string, Access>) => void }) {
  const [catalog, setCatalog] = useState<ScopeInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(
    () =>
      void api<ScopeInfo[]>('GET', '/scopes').then(
        ({ data }) => setCatalog(data),
        (e) => setError(messageOf(e)),
      ),
    [],
  );
  if (!catalog) return error ? <ErrorNote error={error} /> : <p class="muted">Loading scopes…</p>;
  const resources = [...new Set(catalog.map((s) => s.resource))];
  const covers = (resource: string, permission: string) =>
    catalog.find((s) => s.resource === resource && s.permission === permission)?.covers ?? '';
  const set = (resource: string, access: Access) => onChange({ ...value, [resource]: access });
  return (
    <fieldset class="scope-picker">
      <legend>Scopes</legend>
      <table>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col">Read</th>
            <th scope="col">Write</th>
          </tr>
        </thead>
        <tbody>
          {resources.map((resource) => {
            const access = value[resource] ?? 'none';
            return (
              <tr key={resource}>
                <th scope="row">{resource}</th>
                <td>
                  <label title={covers(resource, 'read')}>
                    <input
                      type="checkbox"
                      name={`${resource}:read`}
                      checked={access !== 'none'}
                      disabled={access === 'write'}
                      onChange={(e) => set(resource, e.currentTarget.checked ? 'read' : 'none')}
                    />{' '}
                    read{access === 'write' && <span class="muted"> (implied by write)</span>}
                  </label>
                </td>
                <td>
                  <label title={covers(resource, 'write')}>
                    <input
                      type="checkbox"
                      name={`${resource}:write`}
                      checked={access === 'write'}
                      onChange={(e) => set(resource, e.currentTarget.checked ? 'write' : 'read')}
                    />{' '}
                    write
                  </label>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {scopesOf(value).length === 0 && (
        <p class="warning">
          No scope chosen: by the spec's rule an empty list means <strong>full access</strong>.
        </p>
      )}
    </fieldset>
  );
}
