import { SessionBus } from '../../src/application/ports/session-bus.port';

export interface BusPair {
  a: SessionBus;
  b: SessionBus;
  /** A live session both replicas know. */
  session: string;
  /** Ends the session the way the adapter learns of it. */
  end: (session: string) => Promise<void>;
}

/** How the contract lets time go by: real sleeps by default; the in-memory fake's spec moves jest's fake clock instead. */
export interface BusClock {
  pass(ms: number): Promise<void>;
}
const realClock: BusClock = { pass: (ms) => new Promise((r) => setTimeout(r, ms)) };

/**
 * What every SessionBus must do, for the in-memory fake (unit) and the
 * PostgreSQL adapter (integration): a message the client POSTs to one
 * replica reaches the replica that awaits it, and only that one.
 */
export function sessionBusContract(name: string, pair: () => Promise<BusPair>, clock: BusClock = realClock): void {
  describe(`${name} as a SessionBus`, () => {
    it('hands a response delivered on one replica to the replica awaiting that request id', async () => {
      const { a, b, session } = await pair();
      const answer = a.awaitResponse(session, 'srv-1', 5000);
      const other = a.awaitResponse(session, 7, 300);
      await b.deliver(session, { jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept' } });
      expect(await answer).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept' } });
      await clock.pass(300);
      expect(await other).toBeNull();
    });

    it('keeps request ids of different sessions apart, and numbers apart from strings', async () => {
      const { a, b, session } = await pair();
      const { session: another } = await pair();
      const mine = a.awaitResponse(session, 1, 400);
      const asString = a.awaitResponse(session, '1', 400);
      await b.deliver(another, { jsonrpc: '2.0', id: 1, result: {} });
      await b.deliver(session, { jsonrpc: '2.0', id: '1', error: { code: -1, message: 'declined' } });
      await clock.pass(400);
      expect(await mine).toBeNull();
      expect(await asString).toMatchObject({ id: '1', error: { message: 'declined' } });
    });

    it('answers null after the timeout, and at once for a second wait on the same id', async () => {
      const { a, session } = await pair();
      const started = Date.now();
      const first = a.awaitResponse(session, 'x', 150);
      const firstAt = first.then(() => Date.now());
      expect(await a.awaitResponse(session, 'x', 5000)).toBeNull();
      await clock.pass(150);
      expect(await first).toBeNull();
      expect((await firstAt) - started).toBeGreaterThanOrEqual(140);
    });

    it("hands notifications to the session's handlers on any replica until they unsubscribe", async () => {
      const { a, b, session } = await pair();
      const heard: unknown[] = [];
      const stop = a.onNotification(session, (m) => heard.push(m));
      const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'srv-1', reason: 'user' } };
      await b.deliver(session, cancelled);
      await waitFor(() => heard.length === 1, 3000, clock);
      expect(heard).toEqual([cancelled]);
      stop();
      await b.deliver(session, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
      await clock.pass(150);
      expect(heard).toHaveLength(1);
    });

    it('carries a message too large for one NOTIFY whole', async () => {
      const { a, b, session } = await pair();
      const big = { jsonrpc: '2.0', id: 'big', result: { content: [{ type: 'text', text: 'é'.repeat(20_000) }] } };
      const answer = a.awaitResponse(session, 'big', 5000);
      await b.deliver(session, big);
      expect(await answer).toEqual(big);
    });

    it('answers the waits of a session that ends with null', async () => {
      const { a, session, end } = await pair();
      const answer = a.awaitResponse(session, 'pending', 5000);
      await end(session);
      expect(await answer).toBeNull();
    });
  });
}

export async function waitFor(check: () => boolean, timeoutMs = 3000, clock: BusClock = realClock): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met');
    await clock.pass(5);
  }
}
