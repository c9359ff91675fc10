import { Actor } from '../../../domain/actor';
import { NotFoundError, ValidationError, FieldError } from '../../../domain/errors';
import { isResource } from '../../../domain/scope';
import { ToolRule } from '../../../domain/tool';
import { Clock } from '../../ports/clock.port';
import { RuleCompiler } from '../../ports/rule-compiler.port';
import { BuiltInRuleReader, BuiltInToolRules, ToolRuleStore } from '../../ports/tool-rule-store.port';
import { requireAdmin } from '../guards';
import { checkRuleList } from './tool-rules-check';

export interface PutToolRulesInput {
  actor: Actor;
  /** A built-in tool's name (a resource group: agents, projects, ...). */
  tool: string;
  /** The tool's whole ordered list, unchecked; an empty list clears it. */
  rules: unknown;
}

/**
 * PUT /api/v1/tool-rules/:tool (and DELETE, an empty list): replaces a
 * built-in tool's rules, admins only. Every rule is checked as a server
 * record's are (tool-rules-check.ts); nothing is written unless all pass.
 * This replica's copy is dropped at once, others see the change within
 * their copy's lifetime (CachedBuiltInRules).
 */
export class PutToolRules {
  constructor(
    private readonly store: ToolRuleStore,
    private readonly reader: BuiltInRuleReader,
    private readonly compiler: RuleCompiler,
    private readonly clock: Clock,
  ) {}

  async execute(input: PutToolRulesInput): Promise<BuiltInToolRules> {
    requireAdmin(input.actor, 'change the built-in tools’ rules');
    if (!isResource(input.tool)) throw new NotFoundError('built-in tool', input.tool);
    const errors: FieldError[] = [];
    checkRuleList('rules', input.rules, this.compiler, (field, message) => errors.push({ field, message }));
    if (errors.length > 0) throw new ValidationError(errors);
    const rules = (input.rules as ToolRule[]).map(({ when, effect, message, approvers }) => ({
      when,
      effect,
      message,
      ...(approvers !== undefined && { approvers }),
    }));
    const stored = await this.store.put(input.tool, rules, this.clock.now());
    this.reader.forget();
    return stored;
  }
}
