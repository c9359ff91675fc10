import type { UpstreamName } from '../../../ports/upstream-view.port';
import { SERVER_NAME } from './mcp-server-policy';

/**
 * How upstream resources and prompts are named on /mcp, so two upstreams
 * cannot collide and every name routes back to its server. Prompts are
 * `<server>__<prompt>`, like tools. Resource URIs and URI templates are
 * `keygate://<server>/<the upstream's URI or template, verbatim>`: a server
 * name is 1–32 of a-z, 0-9 and - (never `/` nor `__`), so the authority is
 * the server and the rest is the upstream's text, whatever its scheme.
 */
const SCHEME = 'keygate://';
const SEPARATOR = '__';

export type { UpstreamName };

export function namespacedUri(server: string, uri: string): string {
  return `${SCHEME}${server}/${uri}`;
}

export function splitUri(uri: string): UpstreamName | null {
  if (!uri.startsWith(SCHEME)) return null;
  const slash = uri.indexOf('/', SCHEME.length);
  if (slash === -1) return null;
  return named(uri.slice(SCHEME.length, slash), uri.slice(slash + 1));
}

export function namespacedPrompt(server: string, prompt: string): string {
  return `${server}${SEPARATOR}${prompt}`;
}

export function splitPrompt(name: string): UpstreamName | null {
  const at = name.indexOf(SEPARATOR);
  return at === -1 ? null : named(name.slice(0, at), name.slice(at + SEPARATOR.length));
}

function named(server: string, name: string): UpstreamName | null {
  return SERVER_NAME.test(server) && name !== '' ? { server, name } : null;
}
