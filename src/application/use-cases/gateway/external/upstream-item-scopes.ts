import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { UriTemplatePattern } from '../../../../domain/resource/uri-template-pattern';
import { ScopeSet } from '../../../../domain/scope';

/** Without an entry in resource_scopes / prompt_scopes, seeing an upstream's resource or prompt is reading MCP server configuration. */
export const DEFAULT_ITEM_SCOPES: readonly string[] = Object.freeze(['mcp_servers:read']);

export type ScopeMapField = 'resource_scopes' | 'prompt_scopes';

/**
 * The scopes a resource URI needs: its own resource_scopes entry; else every
 * scope of each entry whose key is a URI template that could produce it (a
 * URI two templates could produce needs both, never the looser); else the
 * default. The same rule serves listing and reading, so what cannot be
 * listed cannot be read.
 */
export function resourceScopes(record: ResourceRecord, uri: string): readonly string[] {
  const map = mapOf(record, 'resource_scopes');
  const own = entry(map, uri);
  if (own !== null) return own;
  const fromTemplates = new Set<string>();
  for (const key of Object.keys(map)) {
    if (!UriTemplatePattern.isTemplate(key) || !(UriTemplatePattern.of(key)?.matches(uri) ?? false)) continue;
    for (const scope of entry(map, key) ?? DEFAULT_ITEM_SCOPES) fromTemplates.add(scope);
  }
  return fromTemplates.size > 0 ? [...fromTemplates] : DEFAULT_ITEM_SCOPES;
}

/** A URI template's scopes: its own resource_scopes entry, else the default. */
export function templateScopes(record: ResourceRecord, template: string): readonly string[] {
  return entry(mapOf(record, 'resource_scopes'), template) ?? DEFAULT_ITEM_SCOPES;
}

/** A prompt's scopes: its prompt_scopes entry (by the upstream's name), else the default. */
export function promptScopes(record: ResourceRecord, prompt: string): readonly string[] {
  return entry(mapOf(record, 'prompt_scopes'), prompt) ?? DEFAULT_ITEM_SCOPES;
}

export function allows(scopes: ScopeSet, needed: readonly string[]): boolean {
  return needed.every((scope) => scopes.allows(scope));
}

/** Whether any item of that map's kind could be visible with these scopes; only then is the server worth contacting. */
export function mayShowAny(record: ResourceRecord, field: ScopeMapField, scopes: ScopeSet): boolean {
  if (allows(scopes, DEFAULT_ITEM_SCOPES)) return true;
  const map = mapOf(record, field);
  return Object.keys(map).some((key) => allows(scopes, entry(map, key) ?? DEFAULT_ITEM_SCOPES));
}

function mapOf(record: ResourceRecord, field: ScopeMapField): Record<string, unknown> {
  const map = record.data[field];
  return typeof map === 'object' && map !== null && !Array.isArray(map) ? (map as Record<string, unknown>) : {};
}

/** An entry as tool_scopes reads one: a non-empty array, own keys only (never `__proto__`'s). */
function entry(map: Record<string, unknown>, key: string): readonly string[] | null {
  if (!Object.hasOwn(map, key)) return null;
  const scopes = map[key];
  return Array.isArray(scopes) && scopes.length > 0 ? (scopes as string[]) : null;
}
