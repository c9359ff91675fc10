import { EntityManager } from 'typeorm';
import { BuiltInToolRules, ToolRuleStore } from '../../application/ports/tool-rule-store.port';
import { ToolRule } from '../../domain/tool';
import { databaseCall } from './database-unavailable';

interface RuleRow {
  tool: string;
  rules: ToolRule[];
  updated_at: Date;
}

/** ToolRuleStore on PostgreSQL (migration 1763900000021): a put is one statement, the last writer's list wins whole. */
export class TypeormToolRuleStore implements ToolRuleStore {
  constructor(private readonly manager: EntityManager) {}

  async list(): Promise<BuiltInToolRules[]> {
    const rows = await databaseCall<RuleRow[]>(this.manager.query('SELECT tool, rules, updated_at FROM tool_rules ORDER BY tool'));
    return rows.map(toRules);
  }

  async put(tool: string, rules: readonly ToolRule[], at: Date): Promise<BuiltInToolRules> {
    if (rules.length === 0) {
      await databaseCall(this.manager.query('DELETE FROM tool_rules WHERE tool = $1', [tool]));
      return { tool, rules: [], updatedAt: at };
    }
    await databaseCall(
      this.manager.query(
        `INSERT INTO tool_rules (tool, rules, updated_at) VALUES ($1, $2::jsonb, $3)
         ON CONFLICT (tool) DO UPDATE SET rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at`,
        [tool, JSON.stringify(rules), at],
      ),
    );
    return { tool, rules: [...rules], updatedAt: at };
  }
}

function toRules(row: RuleRow): BuiltInToolRules {
  return { tool: row.tool, rules: row.rules, updatedAt: new Date(row.updated_at) };
}
