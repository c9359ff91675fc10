import fc from 'fast-check';
import { SCOPE_CATALOG } from '../../../src/domain/scope';
import { arrayText, hugeArray, JsonText, nastyString, text } from './json-text';

export const SCOPES = SCOPE_CATALOG.map((s) => s.scope);

const SCOPE_LIKE = [
  'projects:admin',
  'PROJECTS:READ',
  'projects:read ',
  ' projects:read',
  'projects',
  ':read',
  'projects:',
  'x:y:z',
  'projects:read\u0000',
  '\ud800:read',
  'projects:\udfff',
  '*',
  '',
  'projects:*',
  '*:read',
  'projects:read,agents:read',
  'projects:read agents:read',
  'mcp-servers:read',
  '__proto__:read',
  'constructor:write',
  'projects\u200b:read',
];

export const scopeLike: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SCOPES).map(text) },
  { weight: 3, arbitrary: fc.constantFrom(...SCOPE_LIKE).map(text) },
  { weight: 1, arbitrary: nastyString(20).map(text) },
  { weight: 1, arbitrary: fc.constantFrom('1', 'null', 'true', '{}', '[]', '["projects:read"]', '{"scope":"projects:read"}') },
);

/**
 * Scope arrays: valid subsets, small arrays with repeats and invalid entries,
 * and arrays of 13 to 3,000 items (the limit being landed is 12).
 */
export const scopeArray: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: fc.subarray(SCOPES).map(text) },
  { weight: 3, arbitrary: fc.array(scopeLike, { maxLength: 14 }).map(arrayText) },
  { weight: 2, arbitrary: hugeArray(scopeLike, 13, 3000) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('"projects:read"', '"projects:read,agents:read"', '{"0":"projects:read","length":1}', 'null', '{}', '1'),
  },
);
