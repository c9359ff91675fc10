import { randomBytes, sign } from 'node:crypto';
import fc from 'fast-check';
import { ScannerKey, scannerKey } from '../test-secret-scanner';
import { contentType, encodeBody, headerSafe, transport } from './http-variants';
import { arrayText, deep, hugeArray, JsonText, longString, malformedJson, nastyString, nastyValue, objectWith, text } from './json-text';
import { FuzzRequest, makeRequest } from './fuzz-request';

export const LEAK_REPORT_PATH = '/api/v1/secret-scanning/reports';

/** The scanner's listed keys (the last one current) and the raw keys a report may name. */
export interface LeakFixture {
  keys: ScannerKey[];
  rawKeys: string[];
}

/** Tokens a report may hold: keys that exist (a report revokes them), ones that do not, and anything else. */
const token = (fx: LeakFixture): fc.Arbitrary<JsonText> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fx.rawKeys).map(text) },
    { weight: 2, arbitrary: fc.nat().map((n) => text(`svc_${n.toString(16).padStart(64, '0').slice(-64)}`)) },
    { weight: 1, arbitrary: fc.constantFrom('ghp_notours', 'svc_', `SVC_${'A'.repeat(64)}`, `svc_${'0'.repeat(65)}`, '').map(text) },
    { weight: 2, arbitrary: nastyString(40).map(text) },
    { weight: 1, arbitrary: longString(1000, 1030 * 3).map(text) },
  );

const label = (names: readonly string[], max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...names).map(text) },
    { weight: 2, arbitrary: nastyString(30).map(text) },
    { weight: 1, arbitrary: longString(max - 10, (max + 20) * 6).map(text) },
  );

/** One report: mostly the four fields GitHub sends, any of them wrong now and then. */
const report = (fx: LeakFixture) =>
  objectWith(
    {
      token: [token(fx), 0.95],
      type: [label(['keygate_api_key', 'github_token', 'type'], 255), 0.9],
      url: [label(['https://github.com/acme/app/blob/main/.env', 'https://gist.github.com/x'], 2048), 0.6],
      source: [label(['content', 'commit', 'issue_comment'], 255), 0.6],
    },
    { nastyEvery: 8, extraEvery: 6 },
  );

/** A report body: an array of reports mostly, up to past the 1,000 a body may hold; else anything. */
export const leakBody = (fx: LeakFixture): fc.Arbitrary<JsonText> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.array(report(fx), { minLength: 0, maxLength: 6 }).map(arrayText) },
    // Around the 1,000 reports a body may hold, of small reports so the body stays under 1 MiB and is judged for its count.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 998, max: 1001 })
        .chain((n) => hugeArray(fc.constantFrom('{"token":"svc_x","type":"t"}', '{"token":"ghp_1","type":"t","url":null}'), n, n, 100_000)),
    },
    { weight: 1, arbitrary: nastyValue },
    { weight: 1, arbitrary: malformedJson(fc.array(report(fx), { maxLength: 2 }).map(arrayText)) },
    { weight: 1, arbitrary: deep(33, 10_000) },
  );

const STRANGER = scannerKey();

/** How a report is signed: by a listed key as GitHub would (mostly), or wrongly. */
type Signing = 'current' | 'older' | 'stranger' | 'unknown id' | 'other body' | 'garbage' | 'none' | 'no signature' | 'huge id';
const signing = (signedOnly: boolean): fc.Arbitrary<Signing> =>
  signedOnly
    ? fc.oneof({ weight: 5, arbitrary: fc.constant('current' as const) }, { weight: 1, arbitrary: fc.constant('older' as const) })
    : fc.constantFrom<Signing>('current', 'older', 'stranger', 'unknown id', 'other body', 'garbage', 'none', 'no signature', 'huge id');

function signatureHeaders(fx: LeakFixture, how: Signing, body: Buffer): Record<string, string> {
  const current = fx.keys[fx.keys.length - 1];
  const der = (key: ScannerKey, bytes: Buffer) => sign('sha256', bytes, key.privateKey).toString('base64');
  switch (how) {
    case 'current':
      return { 'Github-Public-Key-Identifier': current.identifier, 'Github-Public-Key-Signature': der(current, body) };
    case 'older':
      return { 'Github-Public-Key-Identifier': fx.keys[0].identifier, 'Github-Public-Key-Signature': der(fx.keys[0], body) };
    case 'stranger':
      return { 'Github-Public-Key-Identifier': current.identifier, 'Github-Public-Key-Signature': der(STRANGER, body) };
    case 'unknown id':
      return { 'Github-Public-Key-Identifier': STRANGER.identifier, 'Github-Public-Key-Signature': der(STRANGER, body) };
    case 'other body':
      return {
        'Github-Public-Key-Identifier': current.identifier,
        'Github-Public-Key-Signature': der(current, Buffer.concat([body, Buffer.from(' ')])),
      };
    case 'garbage':
      return {
        'Github-Public-Key-Identifier': current.identifier,
        'Github-Public-Key-Signature': randomBytes(70).toString('base64').replace(/.$/, '!'),
      };
    case 'none':
      return {};
    case 'no signature':
      return { 'Github-Public-Key-Identifier': current.identifier };
    case 'huge id':
      return { 'Github-Public-Key-Identifier': 'a'.repeat(8000), 'Github-Public-Key-Signature': der(current, body) };
  }
}

/**
 * POST /api/v1/secret-scanning/reports with a generated body. With `signedOnly`
 * every body is signed by a listed key over its exact bytes, so the fuzzing
 * reaches the parsing and revoking behind the signature check; without it the
 * signature, its headers, Content-Type and the body's encoding vary too.
 */
export function leakReportRequest(fx: LeakFixture, signedOnly: boolean): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      text: leakBody(fx),
      signing: signing(signedOnly),
      contentType: signedOnly ? fc.constant('application/json') : contentType,
      transport: signedOnly ? fc.constant('plain' as const) : transport,
      seed: fc.nat(),
    })
    .map((r) => {
      // The bytes encodeBody will send (it is deterministic), signed as they go on the wire.
      const wire = encodeBody(r.text, r.transport, r.seed).body;
      const headers = Object.fromEntries(Object.entries(signatureHeaders(fx, r.signing, wire)).map(([k, v]) => [k, headerSafe(v)]));
      return makeRequest({
        method: 'POST',
        path: LEAK_REPORT_PATH,
        headers: { 'Content-Type': r.contentType, ...headers },
        credential: `scanner signature: ${r.signing}`,
        text: r.text,
        transport: r.transport,
        seed: r.seed,
      });
    });
}
