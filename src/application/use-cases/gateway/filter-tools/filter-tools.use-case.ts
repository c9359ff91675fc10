import { ScopeSet } from '../../../../domain/scope';
import { ToolDescriptor } from '../../../../domain/tool';
import { BUILT_IN_TOOLS } from '../built-in/built-in-tools';

export interface FilterToolsInput {
  scopes: ScopeSet;
  /** The catalog to filter; the built-in tools when absent. */
  tools?: readonly ToolDescriptor[];
}

/** The tools a holder of `scopes` may see: every required scope must be allowed. */
export class FilterTools {
  /** A new array each time, in catalog order: the caller owns it. */
  execute(input: FilterToolsInput): ToolDescriptor[] {
    const tools = input.tools ?? BUILT_IN_TOOLS;
    return tools.filter((tool) => tool.requiredScopes.every((scope) => input.scopes.allows(scope)));
  }
}
