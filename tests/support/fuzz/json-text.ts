import fc from 'fast-check';

/**
 * JSON text, possibly malformed. Values are generated as text, not as objects:
 * an object literal with a `__proto__` key sets the prototype instead of
 * making a key, JSON.stringify recurses (so it, not the service, would be the
 * depth limit), and duplicate keys cannot be expressed as objects at all.
 * JSON.stringify of a string writes NUL as \u0000 and a lone surrogate as
 * \ud800, which is how they reach the service.
 */
export type JsonText = string;

export const text = (value: unknown): JsonText => JSON.stringify(value);

export const objectText = (entries: readonly (readonly [string, JsonText])[]): JsonText =>
  `{${entries.map(([key, value]) => `${text(key)}:${value}`).join(',')}}`;

export const arrayText = (items: readonly JsonText[]): JsonText => `[${items.join(',')}]`;

const PIECES = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u{1F600}',
  '\ufeff',
  '\u202e',
  '\u200b',
  '\uffff',
  '\ufffe',
  '\u0085',
  '\u2028',
  '\n',
  '\r',
  '\t',
  '"',
  '\\',
  '/',
  '%00',
  '%ff',
  "'",
  ';',
  '--',
  '<script>',
  '${x}',
  '{{x}}',
  'é',
  'İ',
  'ﬃ',
  'a',
  'Z',
  ' ',
  ':',
  '0',
];

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\u{1F600}'.slice(0, 1),
  'null',
  'true',
  'undefined',
  'NaN',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '[object Object]',
  "'; DROP TABLE api_keys; --",
  '\u202etxt.exe',
  '../../etc/passwd',
  '%s%s%n',
  '\r\nX-Injected: 1',
  '1e309',
  '-0',
  '   \t\n ',
  'Ω≈ç√∫',
  '𝕏'.repeat(3),
];

/** Short strings that are mostly trouble: NUL, lone surrogates, control and bidi characters, injection. */
export const nastyString = (maxLength = 24): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.string({ maxLength }) },
    { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...PIECES), minLength: 1, maxLength }) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );

/** A long string whose JSON text takes at most `maxBytes` bytes. */
export const longString = (minChars: number, maxBytes: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('x', ' ', 'é', '\u0000', '\ud800', '\u{1F600}', 'ab\u0000'), fc.integer({ min: 0, max: 1000 }))
    .map(([unit, permille]) => {
      const unitBytes = Buffer.byteLength(text(unit)) - 2;
      const maxUnits = Math.max(1, Math.floor((maxBytes - 2) / unitBytes));
      const minUnits = Math.min(maxUnits, Math.ceil(minChars / unit.length));
      return unit.repeat(minUnits + Math.floor(((maxUnits - minUnits) * permille) / 1000));
    });

const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '1e308',
  '-1e308',
  '1e999',
  '-1e999',
  '2e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '0.1e1',
  '1E2',
  '4294967296',
  '-2147483649',
];

export const leaf: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: nastyString().map(text) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.constantFrom('null', 'true', 'false', '{}', '[]', '""') },
);

/** Keys that reach for the prototype or collide with inherited names, and odd ones. */
export const nastyKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'isAdmin',
      'length',
      '$where',
      'a.b',
      '0',
      '',
    ),
  },
  { weight: 2, arbitrary: nastyString(12) },
);

/** Nesting `depth` levels deep, made as text so nothing on the test side recurses. */
export const deepText = (depth: number, kind: 'array' | 'object' | 'proto' | 'mixed', inner: JsonText = '1'): JsonText => {
  switch (kind) {
    case 'array':
      return '['.repeat(depth) + inner + ']'.repeat(depth);
    case 'object':
      return '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
    case 'proto':
      return '{"__proto__":'.repeat(depth) + inner + '}'.repeat(depth);
    case 'mixed':
      return '[{"a":'.repeat(Math.ceil(depth / 2)) + inner + '}]'.repeat(Math.ceil(depth / 2));
  }
};

/**
 * Nesting from just past the 32 levels the hardening allows up to `maxDepth`.
 * The suite uses 10,000: recursion in the service (JSON.stringify of a value
 * it quotes back, the JSON-schema checks) ran out of stack from about 4,000.
 */
export const deep = (minDepth: number, maxDepth: number): fc.Arbitrary<JsonText> =>
  fc
    .tuple(
      fc.integer({ min: minDepth, max: maxDepth }),
      fc.constantFrom<'array' | 'object' | 'proto' | 'mixed'>('array', 'object', 'proto', 'mixed'),
      leaf,
    )
    .map(([depth, kind, inner]) => deepText(depth, kind, inner));

/**
 * `count` items cycling through `items`: a few thousand at most, and no more
 * than fit in `maxBytes`, so a body stays under the size limit and is refused
 * for what it holds rather than for its size.
 */
export const hugeArray = (items: fc.Arbitrary<JsonText>, minCount: number, maxCount: number, maxBytes = 40_000): fc.Arbitrary<JsonText> =>
  fc.tuple(fc.integer({ min: minCount, max: maxCount }), fc.array(items, { minLength: 1, maxLength: 4 })).map(([count, pool]) => {
    const itemBytes = Math.max(...pool.map((item) => Buffer.byteLength(item))) + 1;
    const fitting = Math.max(minCount, Math.min(count, Math.floor(maxBytes / itemBytes)));
    return arrayText(Array.from({ length: fitting }, (_, i) => pool[i % pool.length]));
  });

/** Objects that put their payload under __proto__ or constructor.prototype. */
export const protoObject = (payload: fc.Arbitrary<JsonText>): fc.Arbitrary<JsonText> =>
  fc
    .tuple(fc.constantFrom(0, 1, 2, 3), payload)
    .map(
      ([shape, v]) =>
        [
          `{"__proto__":${v}}`,
          `{"constructor":{"prototype":${v}}}`,
          `{"__proto__":{"__proto__":${v}},"a":1}`,
          `{"toString":${v},"valueOf":${v},"hasOwnProperty":${v}}`,
        ][shape],
    );

/** Any JSON value, small containers mostly, with the big and deep kinds mixed in now and then. */
export const nastyValue: fc.Arbitrary<JsonText> = fc.letrec<{ value: JsonText }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map(arrayText) },
    { weight: 2, arbitrary: fc.array(fc.tuple(nastyKey, tie('value')), { maxLength: 4 }).map(objectText) },
    { weight: 1, arbitrary: protoObject(leaf) },
    { weight: 1, arbitrary: hugeArray(leaf, 13, 3000) },
    { weight: 1, arbitrary: deep(33, 10_000) },
    { weight: 1, arbitrary: longString(256, 20_000).map(text) },
  ),
})).value;

/** How wild objectWith gets: each field is there with probability `present`, one value in `nastyEvery` is any value, one object in `extraEvery` gets extra keys. */
export interface Wildness {
  present?: number;
  nastyEvery?: number;
  extraEvery?: number;
}

/** A value for a field: usually a good one, one time in `nastyEvery` anything at all. */
export const fieldValue = (good: fc.Arbitrary<JsonText>, nastyEvery = 4): fc.Arbitrary<JsonText> =>
  fc.oneof({ weight: nastyEvery - 1, arbitrary: good }, { weight: 1, arbitrary: nastyValue });

/** A field's good values, alone or with its own probability of being there. */
export type FieldSpec = fc.Arbitrary<JsonText> | [fc.Arbitrary<JsonText>, number];

/**
 * An object of the known `fields`, each left out now and then and given a good
 * or a nasty value, sometimes with extra keys (__proto__ among them) and
 * sometimes with a field repeated (the last one wins in JSON.parse).
 */
export const objectWith = (fields: Record<string, FieldSpec>, wild: Wildness = {}): fc.Arbitrary<JsonText> => {
  const { present = 0.75, nastyEvery = 4, extraEvery = 6 } = wild;
  const entry = (name: string, spec: FieldSpec) => {
    const [good, p] = Array.isArray(spec) ? spec : [spec, present];
    const weight = Math.round(p * 100);
    return fc.oneof(
      { weight, arbitrary: fieldValue(good, nastyEvery).map((v) => [name, v] as const) },
      { weight: 100 - weight, arbitrary: fc.constant(null) },
    );
  };
  return fc
    .tuple(
      fc.tuple(...Object.entries(fields).map(([name, spec]) => entry(name, spec))),
      fc.oneof(
        { weight: extraEvery - 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(fc.tuple(nastyKey, nastyValue), { minLength: 1, maxLength: 3 }) },
      ),
      fc.nat(extraEvery * 2),
    )
    .map(([known, extra, repeat]) => {
      const entries = [...known.filter((e): e is readonly [string, JsonText] => e !== null), ...extra];
      if (repeat === 0 && entries.length > 0) entries.push([entries[0][0], 'null']);
      return objectText(entries);
    });
};

const MALFORMED = [
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}}',
  '{"a":1} x',
  'NaN',
  'undefined',
  '{"a":01}',
  '{"a":"\\x41"}',
  '{"a":"\u0000"}',
  '{"a":"\n"}',
  '\ufeff{}',
  '{"a" 1}',
  'nul',
  'tru',
  '"unterminated',
  '{"a":1e}',
  '[1,2,]',
  '{"__proto__":}',
  '\u0000',
  '{"a":"\\ud800"',
  '{"a":"\\u12"}',
  '/* c */ {}',
  '{"a":1}\u0000',
  '{"a":Infinity}',
  '{"a":-}',
  '{"a":.5}',
  '{,}',
  '[,1]',
];

/** Bytes that are not JSON, or JSON cut short. */
export const malformedJson = (prefixOf: fc.Arbitrary<JsonText>): fc.Arbitrary<JsonText> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED) },
    {
      weight: 1,
      arbitrary: fc.tuple(prefixOf, fc.double({ min: 0, max: 1, noNaN: true })).map(([t, f]) => t.slice(0, Math.floor(t.length * f))),
    },
    { weight: 1, arbitrary: nastyString(40) },
  );

/** JSON text just over `limit` bytes: a string field padded past it. */
export const oversize = (limit: number, field = 'name'): fc.Arbitrary<JsonText> =>
  fc.integer({ min: 1, max: 4096 }).map((extra) => {
    const head = `{"${field}":"`;
    return head + 'x'.repeat(limit + extra - head.length - 2) + '"}';
  });
