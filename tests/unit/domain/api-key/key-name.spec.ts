import { MAX_KEY_NAME_LENGTH, parseKeyName } from '../../../../src/domain/api-key';
import { ValidationError } from '../../../../src/domain/errors';

function nameErrors(value: unknown) {
  try {
    parseKeyName(value);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseKeyName', () => {
  it('returns the name as given, surrounding spaces kept', () => {
    expect(parseKeyName('CI deploy')).toBe('CI deploy');
    expect(parseKeyName('  padded ')).toBe('  padded ');
  });

  it('rejects the empty string', () => {
    expect(nameErrors('')).toEqual([{ field: 'name', message: 'must not be empty' }]);
  });

  it.each([' ', '   ', '\t', '\n \t'])('rejects whitespace-only %j', (value) => {
    expect(nameErrors(value)).toEqual([{ field: 'name', message: 'must not be empty' }]);
  });

  it('accepts a name of exactly 255 characters', () => {
    expect(MAX_KEY_NAME_LENGTH).toBe(255);
    const name = 'n'.repeat(255);
    expect(parseKeyName(name)).toBe(name);
  });

  it('rejects a name of 256 characters', () => {
    expect(nameErrors('n'.repeat(256))).toEqual([{ field: 'name', message: expect.stringContaining('255') }]);
  });

  it.each([undefined, null, 42, ['a'], { name: 'a' }])('rejects the non-string %p', (value) => {
    expect(nameErrors(value)).toEqual([{ field: 'name', message: expect.stringContaining('string') }]);
  });
});
