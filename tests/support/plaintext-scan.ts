import { DataSource } from 'typeorm';

/** The tables (of the public schema) where `needle` appears anywhere in a row, as PostgreSQL prints the row. */
export async function tablesContaining(dataSource: DataSource, needle: string): Promise<string[]> {
  const tables: { name: string }[] = await dataSource.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const [{ hits }] = await dataSource.query(`SELECT count(*)::int AS hits FROM "${name}" AS t WHERE strpos(t::text, $1) > 0`, [needle]);
    if (hits > 0) found.push(name);
  }
  return found;
}
