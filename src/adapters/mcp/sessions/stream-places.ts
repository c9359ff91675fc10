export interface StreamPlaceLimits {
  /** MCP_MAX_STREAMS_PER_REPLICA: every stream this replica holds. */
  perReplica: number;
  /** MCP_MAX_STREAMS_PER_KEY: one key's streams on this replica; below perReplica, so one key never fills it. */
  perKey: number;
}

/** A stream's place; giving it back twice gives it back once. */
export interface StreamPlace {
  release(): void;
}

/** Which bound refused a place: the key's share (429, the key's own doing) or the replica's (503). */
export type StreamPlaceRefusal = 'key' | 'replica';

/**
 * The GET streams one replica holds, in all and per key: standalone streams
 * and resumed POST answers alike. The key's share is checked first, so that
 * a key holding its share hears about its own excess, not a full replica.
 */
export class StreamPlaces {
  private total = 0;
  private readonly perKey = new Map<string, number>();

  constructor(private readonly limits: StreamPlaceLimits) {}

  get size(): number {
    return this.total;
  }

  heldBy(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  take(keyId: string): StreamPlace | StreamPlaceRefusal {
    const held = this.heldBy(keyId);
    if (held >= this.limits.perKey) return 'key';
    if (this.total >= this.limits.perReplica) return 'replica';
    this.perKey.set(keyId, held + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = this.heldBy(keyId) - 1;
        // Keys come and go: an entry lives only while its key holds a stream.
        if (left > 0) this.perKey.set(keyId, left);
        else this.perKey.delete(keyId);
      },
    };
  }
}
