import { clipInput, FieldError } from './errors';
import { textProblem } from './text-field';

/**
 * The deepest nesting accepted in a parsed JSON value. A value's depth counts
 * the arrays and objects it sits in, itself included: `"x"` is 0, `{}` is 1,
 * `{"a":[1]}` is 2.
 */
export const MAX_JSON_DEPTH = 32;

/** What findJsonProblem checks besides the depth. */
export interface JsonChecks {
  /** Every string and key must be storable (see textProblem). */
  storableText?: boolean;
  /** No array or object may hold more entries than this. */
  maxEntries?: number;
}

const DEPTH_ONLY: JsonChecks = {};

interface Found {
  /** Keys and indexes from the problem up to the root, innermost first. */
  at: (string | number)[];
  message: string;
}

/**
 * The first thing wrong with a parsed JSON value, naming where it is under
 * `root`: nesting deeper than MAX_JSON_DEPTH, or a failed JsonCheck; null
 * when there is none. The walk recurses, but never more than one level past
 * the limit, so a body nested 30,000 deep costs 33 frames; it stops at the
 * first problem and allocates nothing until it finds one, since it runs on
 * every /mcp body.
 */
export function findJsonProblem(value: unknown, root: string, checks: JsonChecks = DEPTH_ONLY): FieldError | null {
  const found = walk(value, 1, checks.storableText === true, checks.maxEntries ?? Infinity);
  return found && { field: pathOf(root, found.at), message: found.message };
}

const BODY_CHECKS: JsonChecks = { storableText: true };

/**
 * The one text check of the edges: every parsed REST body and every MCP
 * message's params, each string and each key, at any depth. PostgreSQL
 * refuses NUL and unpaired surrogates wherever they land (a name, a jsonb
 * column, a scope map's key), so they are refused before anything runs rather
 * than field by field.
 */
export function findBodyProblem(value: unknown, root: string): FieldError | null {
  return findJsonProblem(value, root, BODY_CHECKS);
}

function walk(value: unknown, depth: number, storableText: boolean, maxEntries: number): Found | null {
  if (typeof value === 'string') {
    const problem = storableText ? textProblem(value) : null;
    return problem === null ? null : { at: [], message: problem };
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_JSON_DEPTH) return { at: [], message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (Array.isArray(value)) {
    if (value.length > maxEntries) return { at: [], message: `must hold at most ${maxEntries} items` };
    for (let index = 0; index < value.length; index++) {
      const found = walk(value[index], depth + 1, storableText, maxEntries);
      if (found) return under(index, found);
    }
    return null;
  }
  const object = value as Record<string, unknown>;
  let entries = 0;
  for (const key in object) {
    if (++entries > maxEntries) return { at: [], message: `must hold at most ${maxEntries} entries` };
    const keyProblem = storableText ? textProblem(key) : null;
    if (keyProblem !== null) return under(key, { at: [], message: `its name ${keyProblem}` });
    const found = walk(object[key], depth + 1, storableText, maxEntries);
    if (found) return under(key, found);
  }
  return null;
}

function under(step: string | number, found: Found): Found {
  found.at.push(step);
  return found;
}

function pathOf(root: string, at: readonly (string | number)[]): string {
  let path = root;
  for (let i = at.length - 1; i >= 0; i--) {
    const step = at[i];
    path += typeof step === 'number' ? `[${step}]` : path === '' ? step : `.${step}`;
  }
  return clipInput(path);
}
