import type { UpstreamName, UpstreamView } from '../../../ports/upstream-view.port';
import { namespacedPrompt, namespacedUri, splitPrompt, splitUri } from './upstream-names';
import { SERVER_NAME } from './mcp-server-policy';

export type { UpstreamView };

const TOOL_SEPARATOR = '__';

/** /mcp: built-in tools and every upstream, namespaced (upstream-names.ts) so two upstreams cannot collide. */
export const NAMESPACED_VIEW: UpstreamView = Object.freeze({
  server: null,
  builtIns: true,
  toolName: (server: string, tool: string) => `${server}${TOOL_SEPARATOR}${tool}`,
  splitTool(name: string): UpstreamName | null {
    const at = name.indexOf(TOOL_SEPARATOR);
    if (at <= 0) return null;
    const tool = name.slice(at + TOOL_SEPARATOR.length);
    return tool === '' ? null : { server: name.slice(0, at), name: tool };
  },
  uri: namespacedUri,
  splitUri,
  promptName: namespacedPrompt,
  splitPrompt,
});

/**
 * /mcp/servers/<server>: that one upstream alone, every name as the upstream
 * gives it, and no built-in tools; each name routes to that server. Null when
 * `server` cannot be a server's name (the endpoint answers that like an unknown one).
 */
export function singleServerView(server: string): UpstreamView | null {
  if (!SERVER_NAME.test(server)) return null;
  const own = (name: string): UpstreamName | null => (name === '' ? null : { server, name });
  const plain = (_server: string, name: string) => name;
  return Object.freeze({
    server,
    builtIns: false,
    toolName: plain,
    splitTool: own,
    uri: plain,
    splitUri: own,
    promptName: plain,
    splitPrompt: own,
  });
}
