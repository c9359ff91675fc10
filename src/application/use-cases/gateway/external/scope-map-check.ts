import { UriTemplatePattern } from '../../../../domain/resource/uri-template-pattern';
import { Scope, SCOPE_CATALOG } from '../../../../domain/scope';
import { isObject } from '../built-in/tool-command';

/** Entries of one resource_scopes or prompt_scopes map (a record's data is 8 KiB in all, so this is seldom the bound met first). */
export const MAX_SCOPE_MAP_ENTRIES = 100;
/** Characters of one key: an upstream URI, URI template or prompt name. */
export const MAX_SCOPE_MAP_KEY_CHARS = 1024;

/**
 * Checks resource_scopes or prompt_scopes as tool_scopes is checked (each
 * value an array of valid scopes), and bounded: at most MAX_SCOPE_MAP_ENTRIES
 * keys of 1 to MAX_SCOPE_MAP_KEY_CHARS characters, at most the catalog's
 * scopes per entry. A resource_scopes key with braces must be a URI template
 * the scope rules can match (upstream-item-scopes.ts).
 */
export function checkScopeMap(
  field: 'resource_scopes' | 'prompt_scopes',
  value: unknown,
  add: (field: string, message: string) => void,
): void {
  const noun = field === 'resource_scopes' ? 'resource URIs or URI templates' : 'prompt names';
  if (!isObject(value)) return add(field, `must map ${noun} to arrays of scopes`);
  const entries = Object.entries(value);
  if (entries.length > MAX_SCOPE_MAP_ENTRIES) return add(field, `must have at most ${MAX_SCOPE_MAP_ENTRIES} entries`);
  for (const [key, scopes] of entries) {
    if (key === '' || key.length > MAX_SCOPE_MAP_KEY_CHARS)
      add(`${field}.${key.slice(0, 64)}`, `keys must be 1 to ${MAX_SCOPE_MAP_KEY_CHARS} characters`);
    else if (field === 'resource_scopes' && /[{}]/.test(key)) {
      const problem = UriTemplatePattern.problemWith(key);
      if (problem !== null) add(`${field}.${key}`, `is not a URI template: ${problem}`);
    }
    if (!Array.isArray(scopes)) add(`${field}.${key}`, 'must be an array of scopes');
    else if (scopes.length > SCOPE_CATALOG.length) add(`${field}.${key}`, `must have at most ${SCOPE_CATALOG.length} scopes`);
    else scopes.forEach((s, i) => Scope.tryParse(s) ?? add(`${field}.${key}[${i}]`, Scope.problemWith(s)));
  }
}
