import { displayPrefixOf, isWellFormedRawKey, KEY_PREFIX_LENGTH, RAW_KEY_LENGTH, RAW_KEY_PREFIX } from '../../../../src/domain/api-key';

const HEX64 = '0123456789abcdef'.repeat(4);
const VALID = `svc_${HEX64}`;

describe('raw key format (spec 2.2)', () => {
  it('has the svc_ prefix, 68 characters and an 8-character display prefix', () => {
    expect(RAW_KEY_PREFIX).toBe('svc_');
    expect(RAW_KEY_LENGTH).toBe(68);
    expect(KEY_PREFIX_LENGTH).toBe(8);
  });
});

describe('isWellFormedRawKey', () => {
  it('accepts svc_ followed by 64 lowercase hex characters', () => {
    expect(VALID).toHaveLength(68);
    expect(isWellFormedRawKey(VALID)).toBe(true);
    expect(isWellFormedRawKey(`svc_${'f'.repeat(64)}`)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['prefix only', 'svc_'],
    ['63 hex characters', `svc_${HEX64.slice(1)}`],
    ['65 hex characters', `${VALID}0`],
    ['uppercase hex', `svc_${HEX64.toUpperCase()}`],
    ['non-hex character', `svc_${HEX64.slice(0, 63)}g`],
    ['wrong prefix', `sk__${HEX64}`],
    ['uppercase prefix', `SVC_${HEX64}`],
    ['missing underscore', `svc${HEX64}0`],
    ['leading space', ` ${VALID.slice(1)}`],
    ['trailing newline', `${VALID}\n`],
  ])('rejects %s', (_label, value) => {
    expect(isWellFormedRawKey(value)).toBe(false);
  });
});

describe('displayPrefixOf', () => {
  it('is the first 8 characters: svc_ plus 4 hex characters', () => {
    expect(displayPrefixOf(VALID)).toBe('svc_0123');
    expect(displayPrefixOf(`svc_${'b'.repeat(64)}`)).toBe('svc_bbbb');
  });
});
