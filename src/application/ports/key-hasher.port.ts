export interface KeyHasher {
  /** The stored form of a raw key (spec: SHA-256, hex). */
  hash(rawKey: string): string;
}
