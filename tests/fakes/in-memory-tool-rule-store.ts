import { BuiltInToolRules, ToolRuleStore } from '../../src/application/ports/tool-rule-store.port';
import { ToolRule } from '../../src/domain/tool';

/** ToolRuleStore in memory: one entry per tool with rules, an empty list removes it. */
export class InMemoryToolRuleStore implements ToolRuleStore {
  readonly rows = new Map<string, BuiltInToolRules>();

  async list(): Promise<BuiltInToolRules[]> {
    return [...this.rows.values()].sort((a, b) => (a.tool < b.tool ? -1 : 1)).map((row) => ({ ...row, rules: [...row.rules] }));
  }

  async put(tool: string, rules: readonly ToolRule[], at: Date): Promise<BuiltInToolRules> {
    const row = { tool, rules: [...rules], updatedAt: at };
    if (rules.length === 0) this.rows.delete(tool);
    else this.rows.set(tool, row);
    return { ...row, rules: [...rules] };
  }
}
