import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface SchemaVerdict {
  kind: string | null;
  name: string | null;
  /** Null when the object is valid against its kind's schema. */
  error: string | null;
}

const CHECKER = path.join(__dirname, 'kubernetes-schemas.mjs');

/** Each object checked against its kind's Kubernetes (or Prometheus Operator) schema; an unknown kind is an error. */
export function validateAgainstSchemas(objects: unknown[]): SchemaVerdict[] {
  const out = execFileSync(process.execPath, [CHECKER], { input: JSON.stringify(objects), encoding: 'utf8' });
  return JSON.parse(out) as SchemaVerdict[];
}
