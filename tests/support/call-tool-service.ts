import { ExternalTools } from '../../src/application/ports/external-tools.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { CallTool, ResourcePolicies } from '../../src/application/use-cases/tools/call-tool.use-case';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryUnitOfWork } from '../fakes/in-memory-unit-of-work';

/** CallTool over `store`, its transactions over the same store; `audit.records` holds what they appended. */
export function makeCallTool(store: ResourceStore, policies: ResourcePolicies, external: ExternalTools) {
  const clock = new FixedClock();
  const work = new InMemoryUnitOfWork({ records: store });
  return { sut: new CallTool(store, policies, external, work, clock), audit: work.audit, clock };
}
