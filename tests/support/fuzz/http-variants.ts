import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { JsonText, nastyString } from './json-text';

/** How a body's text becomes bytes on the wire, and the headers that say so (or lie about it). */
export type Transport =
  'plain' | 'chunked' | 'gzip' | 'gzip-lie' | 'deflate' | 'br' | 'bogus-encoding' | 'utf16' | 'latin1' | 'bom' | 'bad-utf8';

export const transport: fc.Arbitrary<Transport> = fc.oneof(
  { weight: 20, arbitrary: fc.constant('plain' as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Transport>(
      'chunked',
      'gzip',
      'gzip-lie',
      'deflate',
      'br',
      'bogus-encoding',
      'utf16',
      'latin1',
      'bom',
      'bad-utf8',
    ),
  },
);

const BAD_UTF8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xe0, 0x80], [0x80]];

export interface Encoded {
  body: Buffer;
  headers: Record<string, string>;
  chunked?: boolean;
}

/** `seed` picks where invalid UTF-8 goes and which sequence, so the same input always makes the same bytes. */
export function encodeBody(body: JsonText, how: Transport, seed: number): Encoded {
  const utf8 = Buffer.from(body, 'utf8');
  switch (how) {
    case 'plain':
      return { body: utf8, headers: {} };
    case 'chunked':
      return { body: utf8, headers: {}, chunked: true };
    case 'gzip':
      return { body: gzipSync(utf8), headers: { 'Content-Encoding': 'gzip' } };
    case 'gzip-lie':
      return { body: utf8, headers: { 'Content-Encoding': 'gzip' } };
    case 'deflate':
      return { body: deflateSync(utf8), headers: { 'Content-Encoding': 'deflate' } };
    case 'br':
      return { body: brotliCompressSync(utf8), headers: { 'Content-Encoding': 'br' } };
    case 'bogus-encoding':
      return { body: utf8, headers: { 'Content-Encoding': 'x-bogus, gzip' } };
    case 'utf16':
      return { body: Buffer.from(body, 'utf16le'), headers: { 'Content-Type': 'application/json; charset=utf-16le' } };
    case 'latin1':
      return { body: Buffer.from(body, 'latin1'), headers: { 'Content-Type': 'application/json; charset=iso-8859-1' } };
    case 'bom':
      return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), headers: {} };
    case 'bad-utf8': {
      // Inside the first string when there is one, so the bytes reach a value rather than the syntax.
      const quote = utf8.indexOf(0x22);
      const at = quote >= 0 ? quote + 1 : seed % (utf8.length + 1);
      return { body: Buffer.concat([utf8.subarray(0, at), Buffer.from(BAD_UTF8[seed % BAD_UTF8.length]), utf8.subarray(at)]), headers: {} };
    }
  }
}

/** Node's client refuses header values outside these characters, and so would any real proxy. */
export const headerSafe = (value: string): string => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/**
 * Percent-encodes like encodeURIComponent but never throws: a lone surrogate
 * becomes its three (invalid) UTF-8 bytes, the way a careless client sends it.
 */
export function encodeLoose(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

const RAW_SEGMENTS = [
  '',
  'null',
  'undefined',
  '0',
  '-1',
  '1e3',
  'true',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '%00',
  '%ff',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '..',
  '%2e%2e',
  'a%2Fb',
  '%20',
  '__proto__',
  'constructor',
  '{id}',
  ':id',
  "1'or'1'='1",
  '%C0%80',
  '*',
  '~',
  'a;b',
  'a,b',
  '%u0000',
];

/** Path segments in place of an :id: real ids, random UUIDs, nasty ones already encoded. */
export const pathId = (existing: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...existing) },
    { weight: 1, arbitrary: fc.constantFrom(...existing).map((id) => id.toUpperCase()) },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    { weight: 2, arbitrary: nastyString(30).map(encodeLoose) },
    { weight: 1, arbitrary: fc.constantFrom(...existing).map((id) => `${id}%00`) },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 6000 }).map((n) => 'a'.repeat(n)) },
  );

const QUERY_KEYS = ['user_id', 'user_id[]', 'limit', 'cursor', 'q', '__proto__', 'constructor', 'toString', 'a[b]', '', '%00', '%ff'];

/** A query string: usually none, otherwise a few pairs with repeated keys, odd encodings and known names. */
export const queryString = (values: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(fc.constantFrom(...QUERY_KEYS), nastyString(8).map(encodeLoose)),
            fc.oneof(values, nastyString(30).map(encodeLoose), fc.constantFrom('%', '%zz', '%ff', '+', '', '=', '&')),
          ),
          { minLength: 1, maxLength: 4 },
        )
        .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?user_id', '?=x', '?user_id=a&user_id=b', '?%', `?user_id=${'a'.repeat(4000)}`) },
  );

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'application/json; charset=bogus',
  'application/json; charset=utf-32',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/json',
  '',
  'application/json, text/plain',
  'application/json; boundary=""',
  '*/*',
  'application',
];

/** Content-Type, Accept and a few other headers, each sometimes absent (undefined). */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: nastyString(30).map(headerSafe) },
);

export const REST_ACCEPTS = [
  '*/*',
  'application/json',
  'application/problem+json',
  'text/html',
  '',
  'text/event-stream',
  'application/xml;q=0.9, */*;q=0',
  'x',
];

export const accept = (values: readonly string[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: nastyString(30).map(headerSafe) },
  );

/** One extra header now and then: request ids, origins, forwarded addresses, cookies. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'X-Request-Id',
          'Origin',
          'X-Forwarded-For',
          'Cookie',
          'X-HTTP-Method-Override',
          'Range',
          'Accept-Charset',
          'Accept-Encoding',
          'If-None-Match',
          'X-Forwarded-Host',
          'Forwarded',
          'Referer',
          'User-Agent',
        ),
        fc.oneof(
          nastyString(40),
          fc.constantFrom(
            'https://evil.example',
            'null',
            '127.0.0.1, 10.0.0.1',
            'DELETE',
            'bytes=0-1',
            'utf-16',
            'gzip',
            '*',
            'a'.repeat(2000),
          ),
        ),
      )
      .map(([name, value]) => ({ [name]: headerSafe(value) })),
  },
);
