import { loadConfig } from '../../../src/infrastructure/config/config';
import { createDataSource } from '../../../src/infrastructure/database/data-source';
import { buildContainer } from '../../../src/infrastructure/di/container';
import { Lifecycle } from '../../../src/infrastructure/di/lifecycle';
import { hotPathOf } from '../../support/hot-path-parts';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Starts the hot path with these cache sizes and reports which caches came on. */
async function cachesOn(env: Record<string, string>) {
  const dataSource = createDataSource({ url: db.url, poolSize: 2 });
  await dataSource.initialize();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, ...env });
  const container = buildContainer({ config, database: { dataSource, close: () => dataSource.destroy() } });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  try {
    const { cache, resources } = hotPathOf(container);
    return { keys: cache.isEnabled, serverLists: resources.lists.isEnabled };
  } finally {
    await lifecycle.stop();
  }
}

describe('the key and MCP-server-list cache sizes', () => {
  it('keeps the MCP-server-list cache on with the key cache off, so the change listener still runs', async () => {
    expect(await cachesOn({ KEY_CACHE_MAX_ENTRIES: '0', SERVER_LIST_CACHE_MAX_ENTRIES: '100' })).toEqual({
      keys: false,
      serverLists: true,
    });
  });

  it('turns both off with KEY_CACHE_MAX_ENTRIES=0 alone, as before the second setting', async () => {
    expect(await cachesOn({ KEY_CACHE_MAX_ENTRIES: '0' })).toEqual({ keys: false, serverLists: false });
  });

  it('keeps the key cache on with the MCP-server-list cache off', async () => {
    expect(await cachesOn({ KEY_CACHE_MAX_ENTRIES: '100', SERVER_LIST_CACHE_MAX_ENTRIES: '0' })).toEqual({
      keys: true,
      serverLists: false,
    });
  });
});
