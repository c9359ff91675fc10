import { clip, echoInput, MAX_FIELD_ERRORS, ValidationError } from '../../../../src/domain/errors';

describe('ValidationError', () => {
  it('keeps the first 20 errors of many, and its message lists only those', () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({ field: `f${i}`, message: 'is wrong' }));
    const error = new ValidationError(errors);
    expect(error.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(error.errors[19]).toEqual({ field: 'f19', message: 'is wrong' });
    expect(error.message.split('; ')).toHaveLength(20);
  });

  it('clips each field and message to 200 characters', () => {
    const error = ValidationError.single('f'.repeat(1000), 'm'.repeat(1_000_000));
    expect(error.errors[0].field).toHaveLength(200);
    expect(error.errors[0].message).toHaveLength(200);
    expect(error.message.length).toBeLessThan(410);
  });
});

describe('clip', () => {
  it('leaves short text alone and marks cut text with …', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('ab…');
  });

  it('never splits a surrogate pair', () => {
    const clipped = clip(`${'a'.repeat(62)}😀tail`, 64);
    expect(clipped).toBe(`${'a'.repeat(62)}…`);
    expect(clipped.length).toBeLessThanOrEqual(64);
  });
});

describe('echoInput', () => {
  it('quotes strings as JSON, at most 64 of their characters', () => {
    expect(echoInput('nope:read')).toBe('"nope:read"');
    expect(echoInput('y'.repeat(1000))).toBe(`"${'y'.repeat(63)}…"`);
    expect(echoInput('a\u0000b')).toBe('"a\\u0000b"');
  });

  it('shows scalars as they are and arrays and objects by kind, however large or deep', () => {
    expect([42, true, null, undefined].map(echoInput)).toEqual(['42', 'true', 'null', 'undefined']);
    let deep: unknown = {};
    for (let i = 0; i < 30_000; i++) deep = { deep };
    expect(echoInput(deep)).toBe('an object');
    expect(echoInput(new Array(520_000).fill('a'))).toBe('an array');
  });
});
