import { ChangeListener, NotifiedCache } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { FreezableTcpProxy, startFreezableTcpProxy } from '../../../support/freezable-tcp-proxy';
import { eventually } from '../../../support/replica';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
let proxy: FreezableTcpProxy;

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startFreezableTcpProxy(Number(new URL(db.url).port));
});
afterAll(async () => {
  await proxy.close();
  await db.drop();
});

describe('ChangeListener on a connection that goes silent (a server gone from the network, no FIN or RST)', () => {
  it('notices by its heartbeat, turns the caches off, and listens again on a new connection', async () => {
    const seen = { enabled: 0, disabled: 0, evicted: [] as string[] };
    const cache: NotifiedCache = {
      channel: 'keygate_key_revoked',
      evict: (payload) => void seen.evicted.push(payload),
      enable: () => void (seen.enabled += 1),
      disable: () => void (seen.disabled += 1),
    };
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const listener = new ChangeListener([cache], { url: url.toString(), heartbeatMs: 200 });
    await listener.start();
    try {
      expect(seen.enabled).toBe(1);
      proxy.freeze();
      await eventually(() => seen.disabled > 0 && seen.enabled > 1, 10_000, 20);
      await db.dataSource.query(`NOTIFY keygate_key_revoked, 'after'`);
      await eventually(() => seen.evicted.includes('after'), 5000, 20);
    } finally {
      await listener.stop();
    }
  });
});
