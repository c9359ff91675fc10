/**
 * A value as an untyped caller (plain JavaScript, a JSON body) could pass it
 * where a use-case input is typed: the use-cases check every input at run
 * time, and these tests show they still do.
 */
export function untyped<T>(value: unknown): T {
  return value as T;
}
