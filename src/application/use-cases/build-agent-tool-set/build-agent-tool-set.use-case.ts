import { Actor } from '../../../domain/actor';
import { ScopeSet } from '../../../domain/scope';
import { ToolDescriptor } from '../../../domain/tool';
import { FilterTools } from '../gateway/filter-tools/filter-tools.use-case';
import { ResolveAgentScopes } from '../resolve-agent-scopes/resolve-agent-scopes.use-case';

export interface BuildAgentToolSetInput {
  actor: Actor;
  agentRoleId: string;
  modeSessionId?: string | null;
  /** The catalog to filter; the built-in tools when absent. */
  tools?: readonly ToolDescriptor[];
}

export interface AgentToolSet {
  effectiveScopes: ScopeSet;
  tools: ToolDescriptor[];
}

/** What the worker does when it builds an agent's tool set: resolve the scopes, then filter. */
export class BuildAgentToolSet {
  constructor(
    private readonly resolve: ResolveAgentScopes,
    private readonly filter: FilterTools,
  ) {}

  async execute(input: BuildAgentToolSetInput): Promise<AgentToolSet> {
    const { effectiveScopes } = await this.resolve.execute(input);
    return { effectiveScopes, tools: this.filter.execute({ scopes: effectiveScopes, tools: input.tools }) };
  }
}
