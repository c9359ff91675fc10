import { ResourceStore } from '../../../ports/resource-store.port';
import { serverNamed } from '../external/upstream-servers';
import { singleServerView, UpstreamView } from '../external/upstream-view';

export interface FindServerViewInput {
  /** The key's owner. */
  userId: string;
  /** The `<name>` of /mcp/servers/<name>, unchecked. */
  name: string;
}

/**
 * The view of /mcp/servers/<name>: that one upstream server of the key's
 * owner, names unchanged. Null when the owner has no server of that name,
 * whether the name is not a server's name at all, unknown, or another user's:
 * the endpoint answers all three alike, so it tells nothing about others' servers.
 */
export class FindServerView {
  constructor(private readonly store: ResourceStore) {}

  async execute(input: FindServerViewInput): Promise<UpstreamView | null> {
    const view = typeof input.name === 'string' ? singleServerView(input.name) : null;
    if (view === null) return null;
    return (await serverNamed(this.store, input.userId, input.name)) === null ? null : view;
  }
}
