/**
 * Values by key, bounded, each kept until the moment its load named: a token
 * that expires is dropped before it does. A missing key is loaded once
 * however many ask for it at the same time; a load that throws keeps nothing,
 * so the next asker loads again.
 */
export interface ExpiringCache<T> {
  get(key: string, load: () => Promise<{ value: T; keepUntil: Date }>): Promise<T>;
}
