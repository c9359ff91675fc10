import { clip } from '../../../../domain/errors';

// RFC 9110: a field name is a token; a field value is visible ASCII, obs-text,
// spaces and tabs, and neither starts nor ends with a space or a tab.
export const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const FIELD_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

/** A secret that is not a header value (a client secret, a user's secret): any text but control characters (CR, LF, NUL ...). */
export const SECRET_TEXT = /^[^\x00-\x1f\x7f]*$/;

/**
 * The problems of headers an upstream request would carry, each naming its
 * header and never quoting a value: a stored value the transport refuses
 * (a pasted secret with its newline) would otherwise fail every call with a
 * message that quotes it.
 */
export function headerProblems(headers: Record<string, string>, add: (field: string, message: string) => void): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!FIELD_NAME.test(name))
      add(
        'headers',
        `has a name that is not an HTTP header name (a token: letters, digits and !#$%&'*+-.^_\`|~): ${JSON.stringify(clip(name, 64))}`,
      );
    else if (!FIELD_VALUE.test(value)) {
      add(
        `headers.${name}`,
        'is not an HTTP header value: no line breaks, NUL or other control characters, no space at either end (the value is not shown)',
      );
    }
  }
}
