import { canonicalJson } from '../../../../domain/canonical-json';
import { ScopeSet } from '../../../../domain/scope';
import { ToolDescriptor } from '../../../../domain/tool';
import { KeyHasher } from '../../../ports/key-hasher.port';
import { ListTools } from '../list-tools/list-tools.use-case';
import { UpstreamView } from '../external/upstream-view';

/**
 * A digest of the tool definitions a key sees (what tools/list would show):
 * two equal digests mean no client could tell the lists apart, so
 * list_changed is sent only when it moves. Canonical JSON (keys sorted): a
 * per-user server's tools as an upstream served them and as read back from
 * their pins for a user without a connection (canonical text) differ only in
 * the order of their keys, which no client goes by.
 */
export class ToolsDigest {
  constructor(
    private readonly listTools: ListTools,
    private readonly hasher: KeyHasher,
  ) {}

  /** `view`: what one endpoint shows (a 2026 listen stream's); /mcp's when left out. */
  async of(userId: string, scopes: ScopeSet, view?: UpstreamView): Promise<string> {
    const tools = await this.listTools.execute({ userId, scopes, view });
    return this.hasher.hash(canonicalJson([...tools].sort(byName).map(shown)));
  }
}

const byName = (a: ToolDescriptor, b: ToolDescriptor) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function shown(tool: ToolDescriptor): unknown[] {
  return [tool.name, tool.title ?? null, tool.description, tool.inputSchema, tool.annotations ?? null];
}
