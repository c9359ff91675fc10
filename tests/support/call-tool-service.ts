import { ExternalTools } from '../../src/application/ports/external-tools.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { CallTool, ResourcePolicies } from '../../src/application/use-cases/tools/call-tool.use-case';
import { ToolPins } from '../../src/application/use-cases/tools/external/tool-pins';
import { Sha256ContentDigest } from '../../src/adapters/crypto/sha256-content-digest';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryToolPinStore } from '../fakes/in-memory-tool-pin-store';
import { InMemoryUnitOfWork } from '../fakes/in-memory-unit-of-work';

/** ToolPins over in-memory pins (shared by its transactions); `audit.records` holds the events it appended. */
export function makeToolPins(options: { maxPins?: number; work?: InMemoryUnitOfWork; clock?: FixedClock } = {}) {
  const work = options.work ?? new InMemoryUnitOfWork({ pins: new InMemoryToolPinStore() });
  const store = work.ports.pins as InMemoryToolPinStore;
  const pins = new ToolPins(store, work, new Sha256ContentDigest(), options.clock ?? new FixedClock(), options.maxPins ?? 500);
  return { pins, store, audit: work.audit, work };
}

/** CallTool over `store`, its transactions over the same store; `audit.records` holds what they appended. */
export function makeCallTool(store: ResourceStore, policies: ResourcePolicies, external: ExternalTools, work = new InMemoryUnitOfWork({ records: store })) {
  const clock = new FixedClock();
  const { pins } = makeToolPins({ work, clock });
  return { sut: new CallTool(store, policies, external, work, clock, pins), audit: work.audit, clock, pins: work.ports.pins as InMemoryToolPinStore };
}
