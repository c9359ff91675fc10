import { AgentRoleRepository } from './agent-role-repository.port';
import { ApiKeyRepository } from './api-key-repository.port';
import { AuditLog } from './audit-log.port';
import { McpConnectionStore } from './mcp-connection-store.port';
import { ModeSessionRepository } from './mode-session-repository.port';
import { QuotaBalances } from './quota-balances.port';
import { ModeToolConfigRepository } from './mode-tool-config-repository.port';
import { ResourceStore } from './resource-store.port';
import { ToolPinStore } from './tool-pin-store.port';
import { ToolRuleStore } from './tool-rule-store.port';
import { ToolCallApprovalStore } from './tool-call-approval-store.port';

/** The ports whose writes share one transaction with the audit log. */
export interface TransactionPorts {
  keys: ApiKeyRepository;
  roles: AgentRoleRepository;
  modes: ModeToolConfigRepository;
  sessions: ModeSessionRepository;
  /** The built-in tools' records, secrets sealed as the service's own store seals them. */
  records: ResourceStore;
  audit: AuditLog;
  /** Quota balances of key budgets. */
  quotas: QuotaBalances;
  /** Pinned definitions of upstream MCP servers' tools. */
  pins: ToolPinStore;
  /** Users' connections to upstream MCP servers, secrets sealed. */
  connections: McpConnectionStore;
  /** The built-in tools' rules. */
  toolRules: ToolRuleStore;
  /** Approvals of single tool calls, arguments sealed. */
  approvals: ToolCallApprovalStore;
}

/**
 * Runs `work` in one transaction: everything it writes through the ports it is
 * handed commits together, or nothing does when it throws.
 */
export interface UnitOfWork {
  run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T>;
}
