import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../../src/adapters/crypto/aes-gcm-secret-box';
import {
  MAX_REQUEST_STATE_CHARS,
  RequestStateRefused,
  SealedRequestState,
} from '../../../../../src/adapters/mcp/modern/sealed-request-state';

const binding = { keyId: 'key-1', endpoint: '/mcp/servers/files', method: 'tools/call', name: 'read' };

function clockAt(ms: number) {
  const clock = { ms, now: () => new Date(clock.ms) };
  return clock;
}

function reasonOf(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    if (error instanceof RequestStateRefused) return error.reason;
    throw error;
  }
  throw new Error('not refused');
}

describe('SealedRequestState', () => {
  const key = randomBytes(32);

  it('opens what it minted for the same request, and hides the payload', () => {
    const states = new SealedRequestState(new AesGcmSecretBox(key), clockAt(1_000));
    const state = states.mint({ upstream: 'secret-upstream-state', round: 2 }, binding);
    expect(state).not.toContain('secret-upstream-state');
    expect(Buffer.from(state.split(':')[2], 'base64').toString('latin1')).not.toContain('secret-upstream-state');
    expect(states.open(state, binding)).toEqual({ upstream: 'secret-upstream-state', round: 2 });
  });

  it.each([
    ['another key', { keyId: 'key-2' }],
    ['another endpoint', { endpoint: '/mcp' }],
    ['another method', { method: 'prompts/get' }],
    ['another name', { name: 'write' }],
  ])('refuses a state moved to %s', (_, change) => {
    const states = new SealedRequestState(new AesGcmSecretBox(key), clockAt(1_000));
    const state = states.mint({ a: 1 }, binding);
    expect(reasonOf(() => states.open(state, { ...binding, ...change }))).toBe('sealed-elsewhere');
  });

  it('refuses an altered state, a foreign one and a non-string', () => {
    const states = new SealedRequestState(new AesGcmSecretBox(key), clockAt(1_000));
    const state = states.mint({ a: 1 }, binding);
    const body = Buffer.from(state.split(':')[2], 'base64');
    body[body.length - 20] ^= 1;
    const altered = `${state.split(':').slice(0, 2).join(':')}:${body.toString('base64')}`;
    expect(reasonOf(() => states.open(altered, binding))).toBe('sealed-elsewhere');
    const elsewhere = new SealedRequestState(new AesGcmSecretBox(randomBytes(32)), clockAt(1_000)).mint({ a: 1 }, binding);
    expect(reasonOf(() => states.open(elsewhere, binding))).toBe('sealed-elsewhere');
    expect(reasonOf(() => states.open('eyJhIjoxfQ', binding))).toBe('malformed');
    expect(reasonOf(() => states.open(42, binding))).toBe('malformed');
  });

  it('opens only the very string it minted: one with characters base64 decoding would skip is refused', () => {
    const states = new SealedRequestState(new AesGcmSecretBox(key), clockAt(1_000));
    // Three payload lengths: every padding a base64 body can end with.
    for (const payload of [{ a: 1 }, { a: 12 }, { a: 123 }]) {
      const state = states.mint(payload, binding);
      for (const changed of [`${state}x`, `${state}=`, `${state}==`, `${state}-TAMPERED`]) {
        expect(reasonOf(() => states.open(changed, binding))).toBe('malformed');
      }
      expect(states.open(state, binding)).toEqual(payload);
    }
  });

  it('refuses a state past its time, and one minted under the previous key still opens', () => {
    const clock = clockAt(1_000);
    const previous = randomBytes(32);
    const state = new SealedRequestState(new AesGcmSecretBox(previous), clock, 60_000).mint({ a: 1 }, binding);
    const rotated = new SealedRequestState(new AesGcmSecretBox(key, [previous]), clock, 60_000);
    expect(rotated.open(state, binding)).toEqual({ a: 1 });
    clock.ms += 60_000;
    expect(reasonOf(() => rotated.open(state, binding))).toBe('expired');
  });

  it('refuses to mint or open a state past the size bound', () => {
    const states = new SealedRequestState(new AesGcmSecretBox(key), clockAt(1_000));
    expect(reasonOf(() => states.mint({ big: 'x'.repeat(MAX_REQUEST_STATE_CHARS) }, binding))).toBe('too-large');
    expect(reasonOf(() => states.open(`v2:00000000:${'A'.repeat(MAX_REQUEST_STATE_CHARS)}`, binding))).toBe('too-large');
  });
});
