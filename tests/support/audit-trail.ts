import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { canonicalJson } from '../../src/adapters/audit/canonical-json';
import { cleanEnv, ROOT } from './service-process';

export const GENESIS = '0'.repeat(64);

export interface AuditVerifyRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run audit:verify` as users run it: the compiled script (global setup builds dist) as its own process. */
export function auditVerify(databaseUrl: string): Promise<AuditVerifyRun> {
  const script = path.join(ROOT, 'dist', 'scripts', 'audit-verify.js');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script],
      { cwd: ROOT, env: cleanEnv({ DATABASE_URL: databaseUrl }), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Recomputes the chain over events as the API shows them, from the outside:
 * SHA-256 of the previous hash and the event's canonical JSON without `hash`.
 * Returns the seq of the first event that does not chain, or null.
 */
export function firstUnchained(events: Record<string, unknown>[], previous = GENESIS): number | null {
  for (const event of events) {
    const { hash, ...rest } = event;
    if (createHash('sha256').update(previous).update(canonicalJson(rest)).digest('hex') !== hash) return event.seq as number;
    previous = hash;
  }
  return null;
}

/** Edits audit_events the way only someone with the table owner's rights could: with its triggers off. */
export async function tamper(query: (sql: string) => Promise<unknown>, sql: string): Promise<void> {
  await query('ALTER TABLE audit_events DISABLE TRIGGER USER');
  try {
    await query(sql);
  } finally {
    await query('ALTER TABLE audit_events ENABLE TRIGGER USER');
  }
}
