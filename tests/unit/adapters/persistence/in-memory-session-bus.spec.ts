import { randomUUID } from 'node:crypto';
import { InMemorySessionBusHub } from '../../../fakes/in-memory-session-bus';
import { sessionBusContract } from '../../../support/session-bus-contract';

const hub = new InMemorySessionBusHub();
const [a, b] = [hub.replica(), hub.replica()];

// The fake's timeouts run on jest's fake clock (deliveries stay real microtasks): no real waiting.
beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick'] }));
afterEach(() => jest.useRealTimers());

sessionBusContract(
  'the in-memory session bus',
  async () => {
    const session = randomUUID();
    hub.open(session);
    return { a, b, session, end: async (id) => hub.end(id) };
  },
  { pass: async (ms) => void (await jest.advanceTimersByTimeAsync(ms)) },
);
