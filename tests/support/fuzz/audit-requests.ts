import fc from 'fast-check';
import { AUDIT_ACTIONS } from '../../../src/domain/audit';
import { accept, encodeLoose, extraHeaders } from './http-variants';
import { nastyString } from './json-text';
import { FuzzRequest, makeRequest } from './fuzz-request';
import { Credential } from './rest-requests';

export const NDJSON = 'application/x-ndjson';

/** What the audit queries can name: the fixture's users and keys, and cursors the service made. */
export interface AuditFixture {
  credentials: Credential[];
  userIds: string[];
  keyIds: string[];
  cursors: string[];
}

const TIMES = [
  '2000-01-01T00:00:00Z',
  '2099-01-01T00:00:00Z',
  '2026-11-26T12:00:00.123+01:00',
  '2099-01-01',
  '2099-01-01T00:00:00',
  '2099-13-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '+275760-09-14T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  'now',
  '0',
  '1e20',
  '',
];
const LIMITS = ['1', '2', '100', '1000', '1001', '0', '-1', '01', '1.5', '1e3', ' 1', '9999999', '99999999', 'abc', ''];

/**
 * GET /api/v1/audit-events with generated query parameters (each known one
 * with good and bad values, repeated ones, unknown ones), as JSON pages or
 * the NDJSON export (whose paging parameters are a 400), under every credential.
 */
export function auditRequest(fx: AuditFixture, dims: { credentials: boolean } = { credentials: false }): fc.Arbitrary<FuzzRequest> {
  const oneOf = (values: readonly string[]) => fc.constantFrom(...values);
  const odd = fc.oneof(nastyString(20).map(encodeLoose), fc.constantFrom('%', '%zz', '%ff', '%00', '+', 'a'.repeat(3000)));
  const id = (pool: readonly string[]) =>
    fc.oneof({ weight: 3, arbitrary: oneOf(pool) }, { weight: 1, arbitrary: fc.uuid().map(String) }, { weight: 1, arbitrary: odd });
  const values: Record<string, fc.Arbitrary<string>> = {
    action: fc.oneof(
      { weight: 3, arbitrary: oneOf(AUDIT_ACTIONS) },
      { weight: 1, arbitrary: fc.constantFrom('KEY.CREATED', 'key.*', 'key.created,key.revoked') },
      { weight: 1, arbitrary: odd },
    ),
    key_id: id(fx.keyIds),
    user_id: id(fx.userIds),
    since: fc.oneof(oneOf(TIMES).map(encodeURIComponent), odd),
    until: fc.oneof(oneOf(TIMES).map(encodeURIComponent), odd),
    limit: fc.oneof(oneOf(LIMITS).map(encodeURIComponent), odd),
    cursor: fc.oneof(
      { weight: 2, arbitrary: fx.cursors.length > 0 ? oneOf(fx.cursors) : fc.constant('AAAA') },
      { weight: 1, arbitrary: fc.constantFrom('AAAA', 'x'.repeat(33), '-_-', 'MA', 'LTE') },
      { weight: 1, arbitrary: odd },
    ),
  };
  const parameter = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...Object.keys(values)).chain((name) => values[name].map((value) => `${name}=${value}`)) },
    { weight: 1, arbitrary: fc.constantFrom('cursor', 'limit=', 'x=1', '__proto__=1', 'action[]=key.created', 'user_id[a]=1', '=1', '&') },
  );
  const good = fx.credentials.filter((c) => /^(admin|user [AB]) JWT$/.test(c.label));
  return fc
    .record({
      query: fc.array(parameter, { minLength: 0, maxLength: 5 }),
      ndjson: fc.boolean(),
      accept: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: accept([NDJSON, `${NDJSON};q=0`, `application/json, ${NDJSON}`, `${NDJSON}, application/json;q=0.5`]) },
      ),
      credential: fc.constantFrom(...(dims.credentials ? fx.credentials : good)),
      extra: dims.credentials ? extraHeaders : fc.constant({}),
      slash: fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant('/') }),
    })
    .map((r) =>
      makeRequest({
        method: 'GET',
        path: `/api/v1/audit-events${r.slash}${r.query.length > 0 ? `?${r.query.join('&')}` : ''}`,
        headers: { ...r.credential.headers, Accept: r.accept ?? (r.ndjson ? NDJSON : 'application/json'), ...r.extra },
        credential: r.credential.label,
      }),
    );
}
