import { MAX_URI_CHARS } from '../../../application/use-cases/gateway/upstream-content/content-input';
import { EndpointCapabilities } from '../../../application/use-cases/gateway/upstream-view/endpoint-capabilities';

/** The `notifications` of a subscriptions/listen request, as keygate keeps it: only what was asked for. */
export interface ListenFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

export const LIST_FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;
export type ListFlag = (typeof LIST_FLAGS)[number];

/** The list_changed method each flag opts in to. */
export const LIST_CHANGED_METHOD: Readonly<Record<ListFlag, string>> = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request's filter, or why it is refused (-32602): `notifications` is
 * required and an object, each flag a boolean, `resourceSubscriptions` an
 * array of at most `maxUris` non-empty URIs (MCP_MAX_SUBSCRIPTIONS_PER_SESSION,
 * the bound a 2025 session has), each no longer than a resources/read URI.
 * A flag sent as false is not asked for; a URI named twice counts once.
 */
export function listenFilterOf(params: unknown, maxUris: number): ListenFilter | { refused: string } {
  const notifications = isObject(params) ? params.notifications : undefined;
  if (!isObject(notifications)) return { refused: 'subscriptions/listen needs params.notifications, an object' };
  const filter: ListenFilter = {};
  for (const flag of LIST_FLAGS) {
    const value = notifications[flag];
    if (value !== undefined && typeof value !== 'boolean') return { refused: `params.notifications.${flag} must be a boolean` };
    if (value === true) filter[flag] = true;
  }
  const uris = notifications.resourceSubscriptions;
  if (uris === undefined) return filter;
  if (!Array.isArray(uris)) return { refused: 'params.notifications.resourceSubscriptions must be an array of URIs' };
  const unique = [...new Set(uris)];
  if (unique.some((uri) => typeof uri !== 'string' || uri === '' || uri.length > MAX_URI_CHARS)) {
    return { refused: `params.notifications.resourceSubscriptions must hold URIs of 1 to ${MAX_URI_CHARS} characters` };
  }
  if (unique.length > maxUris)
    return { refused: `params.notifications.resourceSubscriptions may name at most ${maxUris} URIs (MCP_MAX_SUBSCRIPTIONS_PER_SESSION)` };
  if (unique.length > 0) filter.resourceSubscriptions = unique as string[];
  return filter;
}

/**
 * The list flags the endpoint can keep: each only where it declares that
 * listChanged (as the SDK's own listen router narrows its acknowledgement),
 * and resource URIs only where it declares subscribe (which ones are then
 * kept is the caller's to decide: routed, readable, followed).
 */
export function honouredFlags(filter: ListenFilter, capabilities: EndpointCapabilities): { flags: Set<ListFlag>; uris: string[] } {
  const declared: Record<ListFlag, boolean> = {
    toolsListChanged: capabilities.tools.listChanged === true,
    promptsListChanged: capabilities.prompts?.listChanged === true,
    resourcesListChanged: capabilities.resources?.listChanged === true,
  };
  const flags = new Set(LIST_FLAGS.filter((flag) => filter[flag] === true && declared[flag]));
  const uris = capabilities.resources?.subscribe === true ? (filter.resourceSubscriptions ?? []) : [];
  return { flags, uris };
}
