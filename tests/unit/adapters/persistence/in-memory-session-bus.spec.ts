import { randomUUID } from 'node:crypto';
import { InMemorySessionBusHub } from '../../../fakes/in-memory-session-bus';
import { sessionBusContract } from '../../../support/session-bus-contract';

const hub = new InMemorySessionBusHub();
const [a, b] = [hub.replica(), hub.replica()];

sessionBusContract('the in-memory session bus', async () => {
  const session = randomUUID();
  hub.open(session);
  return { a, b, session, end: async (id) => hub.end(id) };
});
