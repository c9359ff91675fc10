/**
 * Values by key, bounded and expiring; a missing key is loaded once however
 * many ask for it at the same time. `load` does not throw: what a failure
 * means is a value of its own, cached like any other.
 */
export interface LoadingCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  /** Drops an entry (say the upstream announced a change), so the next get loads it again. */
  forget?(key: string): void;
}
