import { ScopeSet } from '../../../../domain/scope';
import { ToolDescriptor } from '../../../../domain/tool';
import { ExternalTools } from '../../../ports/external-tools.port';
import { FilterTools } from '../filter-tools/filter-tools.use-case';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';

export interface ListToolsInput {
  userId: string;
  scopes: ScopeSet;
  /** Untrusted `agent_scopes` from the request: narrows the caller's scopes, never widens them. */
  agentScopes?: readonly string[];
  /** The endpoint's view of the upstream servers; /mcp's (built-ins, namespaced upstreams) when left out. */
  view?: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
}

/** The tools a caller sees in an endpoint's view: built-in (when it has them) and external, filtered by FilterTools. */
export class ListTools {
  constructor(
    private readonly filterTools: FilterTools,
    private readonly externalTools: ExternalTools,
  ) {}

  /** Throws ValidationError when agent_scopes is not a valid scope array. */
  async execute(input: ListToolsInput): Promise<ToolDescriptor[]> {
    const scopes = input.scopes.narrow(ScopeSet.parse(input.agentScopes, 'agent_scopes'));
    const view = input.view ?? NAMESPACED_VIEW;
    const builtIn = view.builtIns ? this.filterTools.execute({ scopes }) : [];
    const catalog = await this.externalTools.catalog(input.userId, scopes, view, input.subjectToken);
    if (catalog.length === 0) return builtIn;
    return builtIn.concat(this.filterTools.execute({ scopes, tools: catalog }));
  }
}
