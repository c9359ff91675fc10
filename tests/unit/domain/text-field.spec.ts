import { ValidationError } from '../../../src/domain/errors';
import { parseLabel, parseOptionalText, textProblem } from '../../../src/domain/text-field';

function fieldErrors(parse: () => unknown) {
  try {
    parse();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('text PostgreSQL can store', () => {
  it.each([
    ['a NUL character', 'a\u0000b', /NUL/],
    ['a lone high surrogate', '\ud800', /unpaired surrogate/],
    ['a lone low surrogate', 'x\udc00', /unpaired surrogate/],
    ['surrogates in the wrong order', '\udc00\ud800', /unpaired surrogate/],
  ])('textProblem names %s', (_what, value, message) => {
    expect(textProblem(value)).toMatch(message);
  });

  it('accepts any well-formed text, surrogate pairs and control characters other than NUL included', () => {
    expect(textProblem('deploy 😀 ünïcode \t\u0001')).toBeNull();
    expect(textProblem('\ud83d\ude00')).toBeNull();
    expect(parseLabel('ci 😀', 'name', 255)).toBe('ci 😀');
  });
});

describe('labels are one line of text', () => {
  it.each([
    ['a tab', 'a\tb'],
    ['a newline', 'a\nb'],
    ['U+0001', '\u0001'],
    ['DEL', 'x\u007f'],
    ['a C1 control', 'x\u009b'],
  ])('refuses %s in a label, naming the field', (_what, value) => {
    expect(fieldErrors(() => parseLabel(value, 'mode', 100))).toEqual([
      { field: 'mode', message: expect.stringMatching(/control characters/) },
    ]);
  });

  it('keeps tabs and newlines in optional text', () => {
    expect(parseOptionalText('line one\n\tline two', 'description', 2000)).toBe('line one\n\tline two');
  });
});
