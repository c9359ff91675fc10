import { randomBytes, randomUUID } from 'node:crypto';
import { KeyCache } from '../src/adapters/persistence/hot-path/key-cache';
import { ApiKeyMapper } from '../src/adapters/persistence/api-key.mapper';
import { ApiKeyRow, ApiKeyRowSchema } from '../src/adapters/persistence/api-key.row';

export interface KeyCacheMemory {
  keys: number;
  bytesPerKey: number;
  heapMb: number;
}

/** A few scope sets, as real keys share a handful of them; the first is full access. */
const SCOPE_CHOICES: string[][] = [[], ['projects:read'], ['projects:write', 'agents:read'], ['mcp_servers:read', 'chat:write']];

/**
 * Heap a cached key takes: fills a KeyCache with `keys` entries loaded from
 * rows shaped as node-postgres hands them over (fresh strings and Dates each),
 * and divides the growth of the live heap by their number. Needs --expose-gc.
 */
export async function keyCacheMemory(keys = 100_000): Promise<KeyCacheMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  const before = process.memoryUsage().heapUsed;
  const cache = new KeyCache(keys);
  cache.enable();
  for (let i = 0; i < keys; i += 1) {
    const row = benchRow(i);
    // The hash the cache is keyed by comes from the hasher, not from the row: a string of its own.
    await cache.load(randomBytes(32).toString('hex'), async () => ApiKeyMapper.toDomain(row));
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  if (cache.size !== keys) throw new Error(`the cache kept ${cache.size} of ${keys} keys`);
  return { keys, bytesPerKey: Math.round(grown / keys), heapMb: Math.round(grown / 2 ** 20) };
}

/** node-postgres decodes each text field from the message buffer: one flat string each, never a concatenation. */
const flat = (s: string) => Buffer.from(s).toString();

/** Every column NULL: a column added later (a new key attribute) is then a key that leaves it unset. */
const NULL_ROW = Object.fromEntries(Object.keys(ApiKeyRowSchema.options.columns).map((column) => [column, null])) as Record<
  keyof ApiKeyRow,
  null
>;

function benchRow(i: number): ApiKeyRow {
  const createdAt = new Date(Date.now() - i * 1000);
  return {
    ...NULL_ROW,
    id: flat(randomUUID()),
    name: flat(`bench key ${i}`),
    key_prefix: flat(`svc_${randomBytes(2).toString('hex')}`),
    key_hash: randomBytes(32).toString('hex'),
    user_id: flat(randomUUID()),
    scopes: [...SCOPE_CHOICES[i % SCOPE_CHOICES.length]],
    expires_at: i % 2 === 0 ? null : new Date(createdAt.getTime() + 86_400_000 * 365),
    last_used_at: i % 3 === 0 ? null : new Date(createdAt.getTime() + 1000),
    revoked_at: null,
    created_at: createdAt,
    replaced_by: null,
    budget_id: null,
    rate_limit_limit: null,
    rate_limit_window_seconds: null,
    has_quota: false,
    quota_refill_amount: null,
    quota_refill_interval: null,
  };
}

if (require.main === module) {
  keyCacheMemory(Number(process.argv[2] ?? 100_000)).then(
    (m) => console.log(`${m.keys} cached keys: ${m.bytesPerKey} bytes each, ${m.heapMb} MB of heap`),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
