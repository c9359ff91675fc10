import { SecretBox } from '../../../application/ports/secret-box.port';
import { Clock } from '../../../application/ports/clock.port';

/** Longest requestState keygate accepts back or mints: an upstream's own state plus keygate's envelope. */
export const MAX_REQUEST_STATE_CHARS = 16 * 1024;
/** How long a client may take to answer an input-required result (the spec suggests minutes). */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** Why a requestState was refused; never the payload or the binding. */
export type RequestStateFault = 'malformed' | 'too-large' | 'sealed-elsewhere' | 'expired';

/** A requestState keygate did not mint for this caller and request, or minted too long ago. */
export class RequestStateRefused extends Error {
  constructor(readonly reason: RequestStateFault) {
    super(`Invalid or expired requestState (${reason})`);
  }
}

/**
 * What the request a state belongs to is: who asked (the key), where (the
 * endpoint), and what (method and name). A state minted for one is refused
 * for any other, so a client cannot move an upstream's state to another
 * key, server or tool.
 */
export interface RequestStateBinding {
  keyId: string;
  endpoint: string;
  method: string;
  name: string;
}

/**
 * keygate's requestState for 2026-07-28 input-required results: the payload
 * (an upstream's own state, keygate's round data) sealed with the deployment's
 * SecretBox (AES-256-GCM under SECRETS_KEY, so any replica opens it and a key
 * rotation keeps open flows working), bound to its request and dated. The
 * client sees an opaque string: sealed, not just signed, so an upstream's
 * state is never readable by the client it passes through.
 */
export class SealedRequestState {
  constructor(
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly ttlMs = REQUEST_STATE_TTL_MS,
  ) {}

  mint(payload: unknown, binding: RequestStateBinding): string {
    const sealed = this.box.encrypt(JSON.stringify({ x: this.clock.now().getTime() + this.ttlMs, p: payload }), contextOf(binding));
    if (sealed.length > MAX_REQUEST_STATE_CHARS) throw new RequestStateRefused('too-large');
    return sealed;
  }

  open<T = unknown>(state: unknown, binding: RequestStateBinding): T {
    if (typeof state !== 'string' || !this.box.isEncrypted(state)) throw new RequestStateRefused('malformed');
    if (state.length > MAX_REQUEST_STATE_CHARS) throw new RequestStateRefused('too-large');
    if (!canonical(state)) throw new RequestStateRefused('malformed');
    let opened: { x?: unknown; p?: unknown };
    try {
      opened = JSON.parse(this.box.decrypt(state, contextOf(binding))) as { x?: unknown; p?: unknown };
    } catch {
      throw new RequestStateRefused('sealed-elsewhere');
    }
    if (typeof opened.x !== 'number' || opened.x <= this.clock.now().getTime()) throw new RequestStateRefused('expired');
    return opened.p as T;
  }
}

/**
 * Only the exact string minted opens: base64 decoding skips what it does not
 * know, so `<state>x` would open as `<state>` does; the client must echo the
 * state byte for byte (2026-07-28), and anything else is a changed state.
 */
function canonical(state: string): boolean {
  const body = state.slice(state.lastIndexOf(':') + 1);
  return Buffer.from(body, 'base64').toString('base64') === body;
}

// NUL separates the parts: none of them can contain one (the edge refuses NUL in every string).
function contextOf(binding: RequestStateBinding): string {
  return `mcp-request-state\0${binding.keyId}\0${binding.endpoint}\0${binding.method}\0${binding.name}`;
}
