import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { ToolDescriptor } from '../../domain/tool';
import { UpstreamView } from '../../application/use-cases/gateway/external/upstream-view';
import { unchecked } from '../unchecked';
import { ValidationError } from '../../domain/errors';

export interface ToolsListParams {
  cursor?: unknown;
  agent_scopes?: unknown;
}

/**
 * tools/list as this server answers it: the SDK handler and the fast path
 * both call this, so the two cannot drift apart.
 */
export async function listToolsFor(
  listTools: ListTools,
  principal: KeyPrincipal,
  params: ToolsListParams,
  view?: UpstreamView,
): Promise<readonly ToolDescriptor[]> {
  // Every tool fits on one page, so no cursor was ever handed out.
  if (params.cursor !== undefined) throw ValidationError.single('cursor', 'was never issued: this server does not paginate');
  return listTools.execute({
    userId: principal.userId,
    scopes: principal.scopes,
    agentScopes: unchecked(params.agent_scopes),
    view,
    subjectToken: principal.accessToken?.token,
  });
}
