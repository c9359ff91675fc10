import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { argumentsSha256 } from '../../../../src/adapters/audit/arguments-digest';
import { auditEventJson, chainHash, eventCanonicalJson } from '../../../../src/adapters/audit/audit-chain';
import { canonicalJson } from '../../../../src/adapters/audit/canonical-json';

/** The rules written out plainly, as the chain was first hashed: what the fast code must keep matching. */
function reference(value: unknown): string {
  const fix = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g, '\uFFFD');
  if (typeof value === 'string') return JSON.stringify(fix(value));
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [fix(k), v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('canonicalJson', () => {
  it('sorts keys by code unit at every level, drops undefined members and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: [{ z: null, y: true }], é: 'x', B: undefined, '10': 2, '9': 3 })).toBe(
      '{"10":2,"9":3,"a":[{"y":true,"z":null}],"b":1,"é":"x"}',
    );
  });

  it('makes strings and keys well-formed: a lone surrogate or NUL becomes U+FFFD, a pair stays', () => {
    expect(canonicalJson({ 'k\uD800': 'a\u0000b', '😀': '\uDC00😀' })).toBe('{"k\uFFFD":"a\uFFFDb","😀":"\uFFFD😀"}');
  });

  it('refuses what JSON cannot say', () => {
    expect(() => canonicalJson({ n: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
  });

  it('matches the plain rules for any JSON value, odd strings included', () => {
    const text = fc.string({ unit: 'binary' });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        text,
        fc.array(tie('value')),
        fc.dictionary(fc.oneof(text, fc.constantFrom('a', 'b', 'A', '1', '__proto__')), tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => canonicalJson(value) === reference(value)),
      { numRuns: 500 },
    );
  });
});

describe('the digests over it', () => {
  it('argumentsSha256 is SHA-256 hex of the canonical arguments, {} when there are none', () => {
    expect(argumentsSha256({ id: 'x', action: 'get' })).toBe(sha256('{"action":"get","id":"x"}'));
    expect(argumentsSha256(undefined)).toBe(sha256('{}'));
  });

  it('argumentsSha256 counts a number JSON cannot hold (1e999 parses to Infinity) as null, as JSON.stringify does, instead of failing', () => {
    expect(argumentsSha256(JSON.parse('{"data":{"n":-1e999,"m":[1e999]},"id":"x"}'))).toBe(
      sha256('{"data":{"m":[null],"n":null},"id":"x"}'),
    );
  });

  it("chainHash is SHA-256 hex of the previous hash followed by the event's canonical JSON", () => {
    const event = {
      id: 'e1',
      seq: 2,
      occurredAt: new Date('2026-01-02T03:04:05.006Z'),
      action: 'tool.called' as const,
      actor: { type: 'key' as const, id: 'k' },
      userId: 'u',
      keyId: 'k',
      target: { type: 'tool', id: 'projects' },
      requestId: null,
      ip: null,
      details: { outcome: 'ok' },
    };
    const previous = 'f'.repeat(64);
    expect(chainHash(previous, event)).toBe(
      sha256(
        previous +
          '{"action":"tool.called","actor":{"id":"k","type":"key"},"details":{"outcome":"ok"},' +
          '"id":"e1","ip":null,"key_id":"k","occurred_at":"2026-01-02T03:04:05.006Z","request_id":null,"seq":2,"target":{"id":"projects","type":"tool"},"user_id":"u"}',
      ),
    );
  });
});

describe('eventCanonicalJson', () => {
  const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.uuid());
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      text,
      fc.array(tie('v')),
      fc.dictionary(text, tie('v')),
    ),
  })).v;
  const event = fc.record({
    id: fc.uuid(),
    seq: fc.nat(),
    occurredAt: fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
    action: fc.constantFrom('tool.called' as const, 'key.created' as const),
    actor: fc.record({ type: fc.constantFrom('key' as const, 'user' as const), id: fc.option(text, { nil: null }) }),
    userId: fc.option(fc.uuid(), { nil: null }),
    keyId: fc.option(fc.uuid(), { nil: null }),
    target: fc.record({ type: text, id: fc.option(text, { nil: null }) }),
    requestId: fc.option(text, { nil: null }),
    ip: fc.option(text, { nil: null }),
    details: fc.dictionary(text, value),
  });

  it('is the canonical JSON of the event as the API shows it, for any event', () => {
    fc.assert(
      fc.property(event, (e) => eventCanonicalJson(e as never) === canonicalJson(auditEventJson(e as never))),
      { numRuns: 500 },
    );
  });
});
