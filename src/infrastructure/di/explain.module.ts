import { Container } from 'inversify';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { ExternalTools } from '../../application/ports/external-tools.port';
import { McpConnectionStore } from '../../application/ports/mcp-connection-store.port';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { UsageBudget } from '../../application/ports/usage-budget.port';
import { ExplainToolCall } from '../../application/use-cases/explain/explain-tool-call.use-case';
import { ListKeyTools } from '../../application/use-cases/explain/list-key-tools.use-case';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { ToolRuleGate } from '../../application/use-cases/gateway/tools/tool-rule-gate';
import { ExplainController } from '../../adapters/http/controllers/explain.controller';
import { Config } from '../config/config';
import { connectPageUrl } from '../config/connect-page-url';
import { TOKENS } from './tokens';
import { ToolCallApprovalStore } from '../../application/ports/tool-call-approval-store.port';
import { Sha256ContentDigest } from '../../adapters/crypto/sha256-content-digest';

/** Explain (issue 28): the gateway's own pieces, read-only; the budget only through its read path. */
export function bindExplain(c: Container): void {
  c.bind(ExplainToolCall).toResolvedValue(
    (
      keys: ApiKeyRepository,
      external: ExternalTools,
      pins: ToolPins,
      rules: ToolRuleGate,
      budget: UsageBudget,
      quotas: QuotaBalances,
      clock: Clock,
      connections: McpConnectionStore,
      config: Config,
      store: ToolCallApprovalStore,
    ) =>
      new ExplainToolCall({
        keys,
        external,
        pins,
        rules,
        budget,
        quotas,
        clock,
        connections,
        connectUrl: connectPageUrl(config),
        approvals: { store, digest: new Sha256ContentDigest() },
      }),
    [
      TOKENS.ApiKeyRepository,
      TOKENS.ExternalTools,
      ToolPins,
      ToolRuleGate,
      TOKENS.UsageBudget,
      TOKENS.QuotaBalances,
      TOKENS.Clock,
      TOKENS.McpConnectionStore,
      TOKENS.Config,
      TOKENS.ToolCallApprovalStore,
    ],
  );
  c.bind(ListKeyTools).toResolvedValue(
    (keys: ApiKeyRepository, store: ResourceStore, pins: ToolPins, clock: Clock) => new ListKeyTools(keys, store, pins, clock),
    [TOKENS.ApiKeyRepository, TOKENS.ResourceStore, ToolPins, TOKENS.Clock],
  );
  c.bind(ExplainController).toResolvedValue(
    (explain: ExplainToolCall, tools: ListKeyTools) => new ExplainController(explain, tools),
    [ExplainToolCall, ListKeyTools],
  );
}
