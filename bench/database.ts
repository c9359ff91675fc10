import { Client } from 'pg';

/** A new, empty database beside the admin one (the service migrates it at start). */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
