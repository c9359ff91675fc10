import { Actor } from '../../../domain/actor';
import { BuiltInToolRules, ToolRuleStore } from '../../ports/tool-rule-store.port';
import { requireAdmin } from '../guards';

/** GET /api/v1/tool-rules: every built-in tool that has rules, with them (admins only). */
export class ListToolRules {
  constructor(private readonly store: ToolRuleStore) {}

  async execute(input: { actor: Actor }): Promise<BuiltInToolRules[]> {
    requireAdmin(input.actor, 'read the built-in tools’ rules');
    return this.store.list();
  }
}
