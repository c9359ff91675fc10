import type { Access } from './scope-picker';

/** A stored scope list as the picker's choice (the inverse of scopesOf): a resource's `:write` wins over its `:read`. */
export function accessOf(scopes: string[]): Record<string, Access> {
  const choice: Record<string, Access> = {};
  for (const scope of scopes) {
    const [resource, permission] = scope.split(':');
    if (!resource || (permission !== 'read' && permission !== 'write')) continue;
    if (choice[resource] !== 'write') choice[resource] = permission;
  }
  return choice;
}
