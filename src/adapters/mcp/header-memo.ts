/**
 * `judge` memoized per header value. Clients send a handful of distinct
 * values (Accept, Content-Type), and judging one costs more than the rest of
 * a small request; a flood of made-up values only empties the memo, which
 * never holds more than `max`.
 */
export function headerMemo<T>(judge: (value: string) => T, max = 100): (value: string) => T {
  const known = new Map<string, T>();
  return (value) => {
    if (known.has(value)) return known.get(value) as T;
    const verdict = judge(value);
    if (known.size >= max) known.clear();
    known.set(value, verdict);
    return verdict;
  };
}
