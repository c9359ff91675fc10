import { Container } from 'inversify';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { TOKENS } from './tokens';

/** /mcp/servers/<name>: one upstream server's view, over the same directories as /mcp. */
export function bindMcpServerViews(c: Container): void {
  c.bind(FindServerView).toResolvedValue((store: ResourceStore) => new FindServerView(store), [TOKENS.ResourceStore]);
}
