import { AuditLog } from '../../src/application/ports/audit-log.port';
import { TransactionPorts, UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import { AuditRecord } from '../../src/domain/audit';
import { InMemoryAgentRoleRepository } from './in-memory-agent-role.repository';
import { InMemoryApiKeyRepository } from './in-memory-api-key.repository';
import { InMemoryMcpConnectionStore } from './in-memory-mcp-connection.store';
import { InMemoryModeSessionRepository } from './in-memory-mode-session.repository';
import { InMemoryModeToolConfigRepository } from './in-memory-mode-tool-config.repository';
import { InMemoryResourceStore } from './in-memory-resource.store';
import { InMemoryQuotaBalances } from './in-memory-quota-balances';
import { InMemoryToolPinStore } from './in-memory-tool-pin-store';
import { InMemoryToolRuleStore } from './in-memory-tool-rule-store';
import { InMemoryToolCallApprovalStore } from './in-memory-tool-call-approval.store';

/** Records what would be appended; use-case tests read `records`. */
export class InMemoryAuditLog implements AuditLog {
  readonly records: AuditRecord[] = [];

  async append(records: readonly AuditRecord[]): Promise<void> {
    this.records.push(...records);
  }
}

export type InMemoryPorts = Omit<TransactionPorts, 'audit'>;

/**
 * The in-memory ports as one "transaction": a run that throws keeps its audit
 * records out, as a rollback would (writes to the in-memory repositories are
 * not undone, so tests of failures check the audit trail, not the rows).
 * Ports not given are fresh in-memory ones.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  readonly ports: InMemoryPorts;

  constructor(
    ports: Partial<InMemoryPorts> = {},
    readonly audit: InMemoryAuditLog = new InMemoryAuditLog(),
  ) {
    const sessions = ports.sessions ?? new InMemoryModeSessionRepository();
    this.ports = {
      keys: ports.keys ?? new InMemoryApiKeyRepository(),
      sessions,
      roles: ports.roles ?? new InMemoryAgentRoleRepository(sessions as InMemoryModeSessionRepository),
      modes: ports.modes ?? new InMemoryModeToolConfigRepository(sessions as InMemoryModeSessionRepository),
      records: ports.records ?? new InMemoryResourceStore(),
      quotas: ports.quotas ?? new InMemoryQuotaBalances(),
      pins: ports.pins ?? new InMemoryToolPinStore(),
      connections: ports.connections ?? new InMemoryMcpConnectionStore(),
      toolRules: ports.toolRules ?? new InMemoryToolRuleStore(),
      approvals: ports.approvals ?? new InMemoryToolCallApprovalStore(),
    };
  }

  async run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T> {
    const pending = new InMemoryAuditLog();
    const result = await work({ ...this.ports, audit: pending });
    await this.audit.append(pending.records);
    return result;
  }
}
