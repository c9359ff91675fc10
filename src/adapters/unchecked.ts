/**
 * The one way a value from the wire that no DTO describes (a query string,
 * JSON-RPC params, the introspection form; REST JSON bodies are DTOs, checked
 * in http/dto/body-fields.ts) reaches a use-case input typed for in-process callers. Nothing is
 * checked here on purpose: every use-case parses each input with its value
 * objects at run time (KeyName, ScopeSet, UUIDs, ISO-8601 times), and that is
 * what turns a wrong type or a missing field into a 400 naming the field, with
 * the same message for HTTP callers and untyped in-process ones alike.
 */
export function unchecked<T>(value: unknown): T {
  return value as T;
}
