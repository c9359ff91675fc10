import { ScopeSet } from '../../../domain/scope';
import { ToolDescriptor } from '../../../domain/tool';
import { BUILT_IN_TOOLS } from './built-in-tools';

export interface FilterToolsInput {
  scopes: ScopeSet;
  /** The catalog to filter; the built-in tools when absent. */
  tools?: readonly ToolDescriptor[];
}

/** The tools a holder of `scopes` may see: every required scope must be allowed. */
export class FilterTools {
  /**
   * The built-in tools never change and a ScopeSet is immutable, so each key's
   * built-in list is worked out once; being the same array every time also
   * lets the MCP adapter reuse its serialised form.
   */
  private readonly builtInFor = new WeakMap<ScopeSet, readonly ToolDescriptor[]>();

  execute(input: FilterToolsInput): readonly ToolDescriptor[] {
    if (input.tools !== undefined) return visible(input.tools, input.scopes);
    let tools = this.builtInFor.get(input.scopes);
    if (tools === undefined) {
      tools = Object.freeze(visible(BUILT_IN_TOOLS, input.scopes));
      this.builtInFor.set(input.scopes, tools);
    }
    return tools;
  }
}

function visible(tools: readonly ToolDescriptor[], scopes: ScopeSet): ToolDescriptor[] {
  return tools.filter((tool) => tool.requiredScopes.every((scope) => scopes.allows(scope)));
}
