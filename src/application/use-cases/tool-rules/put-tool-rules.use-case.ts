import { Actor } from '../../../domain/actor';
import { NotFoundError, ValidationError, FieldError } from '../../../domain/errors';
import { isResource } from '../../../domain/scope';
import { ToolRule } from '../../../domain/tool';
import { Clock } from '../../ports/clock.port';
import { RuleCompiler } from '../../ports/rule-compiler.port';
import { BuiltInRuleReader, BuiltInToolRules } from '../../ports/tool-rule-store.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { actorEvent } from '../actor-event';
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
 * The change and its `tool_rules.updated` event commit together.
 * This replica's copy is dropped at once, others see the change within
 * their copy's lifetime (CachedBuiltInRules).
 */
export class PutToolRules {
  constructor(
    private readonly work: UnitOfWork,
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
    const at = this.clock.now();
    const stored = await this.work.run(async ({ toolRules, audit }) => {
      const written = await toolRules.put(input.tool, rules, at);
      // The rules themselves are in the table; the event says who changed which tool's, to how many, of which effects.
      const details = { rule_count: rules.length, effects: rules.map((rule) => rule.effect) };
      await audit.append([
        actorEvent(
          'tool_rules.updated',
          input.actor,
          { userId: input.actor.userId, target: { type: 'tool', id: input.tool } },
          at,
          details,
        ),
      ]);
      return written;
    });
    this.reader.forget();
    return stored;
  }
}
