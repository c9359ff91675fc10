import { LocalPostgres } from '../../src/infrastructure/database/local-postgres';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __KEYGATE_PG__?: LocalPostgres }).__KEYGATE_PG__?.stop();
}
