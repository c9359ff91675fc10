import fc from 'fast-check';
import { MAX_ERROR_BODY_BYTES, MAX_ERROR_ENTRIES, parsed, rpcMessages, Rule } from './contract';
import { JsonText, text } from './json-text';

/**
 * Rules for the limits being landed with the hardening issue (they fail on
 * the code before it): statuses and JSON-RPC codes of refusals, and small
 * error answers.
 */
export const statusIs =
  (...expected: number[]): Rule =>
  ({ response }) =>
    expected.includes(response.status) ? [] : [`expected status ${expected.join(' or ')}, got ${response.status}`];

export const statusIsNot =
  (refused: number): Rule =>
  ({ response }) =>
    response.status === refused ? [`status ${refused}`] : [];

/** Every message answered is a JSON-RPC error with `code`. */
export const rpcErrorIs =
  (code: number): Rule =>
  (ex) => {
    const messages = rpcMessages(ex);
    if (messages.length === 0) return [`expected JSON-RPC error ${code}, got no JSON-RPC message (status ${ex.response.status})`];
    return messages
      .map((m) => (m.error as { code?: number } | undefined)?.code)
      .filter((c) => c !== code)
      .map((c) => `expected JSON-RPC error ${code}, got ${c === undefined ? 'a result' : c}`);
  };

/** No message answered is an error with `code` (the request was not refused for that reason). */
export const rpcErrorIsNot =
  (code: number): Rule =>
  (ex) =>
    rpcMessages(ex).some((m) => (m.error as { code?: number } | undefined)?.code === code) ? [`JSON-RPC error ${code}`] : [];

/** Error answers under 16 KiB with at most 20 `errors`: a 4xx problem body, or a JSON-RPC error on /mcp. */
export const smallErrors: Rule = (ex) => {
  const { response } = ex;
  const isError = response.status >= 400 || rpcMessages(ex).some((m) => m.error !== undefined);
  if (!isError) return [];
  const problems: string[] = [];
  if (response.bytes > MAX_ERROR_BODY_BYTES) problems.push(`error answer of ${response.bytes} bytes (over ${MAX_ERROR_BODY_BYTES})`);
  const errors = parsed(response)?.errors;
  if (Array.isArray(errors) && errors.length > MAX_ERROR_ENTRIES)
    problems.push(`${errors.length} errors entries (over ${MAX_ERROR_ENTRIES})`);
  return problems;
};

/** A label-like string with one NUL or lone surrogate put somewhere in it. */
export const tainted = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.string({ unit: fc.constantFrom(...'abcxyz-0 é'), minLength: 1, maxLength: Math.max(1, maxLength - 3) }),
      fc.constantFrom('\u0000', '\ud800', '\udfff', '\udbff', '\udc00', 'x\u0000', '\ud83d'),
      fc.nat(),
    )
    .map(([base, bad, at]) => {
      const i = at % (base.length + 1);
      return base.slice(0, i) + bad + base.slice(i) + (i === base.length ? 'a' : '');
    });

/** A JSON value holding a tainted string somewhere: as the value, in an array or object, or as a key. */
export const taintedValue: fc.Arbitrary<JsonText> = fc
  .tuple(tainted(40), fc.constantFrom(0, 1, 2, 3))
  .map(([s, shape]) => [text(s), `[${text(s)}]`, `{"a":{"b":${text(s)}}}`, `{${text(s)}:1}`][shape]);
