import { CelRuleCompiler } from '../../../../../src/adapters/rules/cel-rule-compiler';
import { BuiltInRuleReader } from '../../../../../src/application/ports/tool-rule-store.port';
import { RateDecision, UsageBudget } from '../../../../../src/application/ports/usage-budget.port';
import { ToolRuleGate } from '../../../../../src/application/use-cases/gateway/tools/tool-rule-gate';
import { ApiKey, ApiKeyProps, RateLimit } from '../../../../../src/domain/api-key';
import { ToolRule } from '../../../../../src/domain/tool';
import { FixedClock } from '../../../../fakes/fixed-clock';
import { InMemoryApiKeyRepository } from '../../../../fakes/in-memory-api-key.repository';
import { InMemoryUsageBudget } from '../../../../fakes/in-memory-usage-budget';
import { ApiKeyMother } from '../../../../mothers/api-key.mother';
import { makeToolPins } from '../../../../support/call-tool-service';

/** A budget that fails the test if anything spends from it: explaining only reads. */
export class ReadOnlyBudget implements UsageBudget {
  constructor(readonly inner = new InMemoryUsageBudget()) {}

  async admitRequest(): Promise<RateDecision> {
    throw new Error('explaining counted a request against the rate limit');
  }

  async chargeToolCalls(): Promise<boolean> {
    throw new Error('explaining took quota credits');
  }

  peekRate(budgetId: string, limit: RateLimit, now: Date) {
    return this.inner.peekRate(budgetId, limit, now);
  }
}

/** The ports explain and the tools list read, in memory; `pin` and `change` set a server's pins as listings would. */
export function makeExplainPorts(builtIns: Record<string, ToolRule[]> = {}) {
  const clock = new FixedClock();
  const keys = new InMemoryApiKeyRepository();
  const { pins, store: pinStore } = makeToolPins({ clock });
  const reader: BuiltInRuleReader = { rulesFor: async (tool) => builtIns[tool] ?? [], forget: () => undefined };
  const rules = new ToolRuleGate(new CelRuleCompiler(), clock, reader);
  const budget = new ReadOnlyBudget();
  const save = (overrides: Partial<ApiKeyProps> = {}): ApiKey => {
    const props = ApiKeyMother.props(overrides);
    keys.rows.set(props.id, props);
    return ApiKey.restore(props);
  };
  const pin = (serverId: string, ...tools: string[]) =>
    pinStore.pinFirst(
      serverId,
      tools.map((tool) => ({ tool, sha256: `${tool}-1` })),
      500,
    );
  const change = (serverId: string, tool: string) => pinStore.markChanged(serverId, [{ tool, sha256: `${tool}-2` }]);
  return { clock, keys, pins, pinStore, rules, budget, save, pin, change };
}
