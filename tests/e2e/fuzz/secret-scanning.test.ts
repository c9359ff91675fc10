import { check, Exchange, exchangeListeners } from '../../support/fuzz/contract';
import { FuzzApp, startFuzzApp } from '../../support/fuzz/fuzz-app';
import { FuzzRequest } from '../../support/fuzz/fuzz-request';
import { fuzz } from '../../support/fuzz/fuzz-runner';
import { LeakFixture, leakReportRequest } from '../../support/fuzz/leak-reports';
import { makeKey } from '../../support/mcp-keys';
import { scannerKey, TestSecretScanner } from '../../support/test-secret-scanner';

/**
 * The leak-report route (secret scanning) with generated bodies, validly
 * signed by the scanner's listed keys so they get past the signature check,
 * and then with the signature and headers generated too. Each answer: below
 * 500, within its bound (one verdict per reported token, answer-bounds.ts),
 * and when 4xx, not a row written; afterwards the app still answers.
 */
jest.setTimeout(60_000);

let scanner: TestSecretScanner;
let app: FuzzApp;
let fx: LeakFixture;

beforeAll(async () => {
  scanner = await new TestSecretScanner().start();
  // An older listed key besides the current one: GitHub signs with either while it rotates.
  scanner.keys.unshift(scannerKey());
  app = await startFuzzApp({ SECRET_SCANNING_KEYS_URL: scanner.url });
  const keys = await Promise.all(Array.from({ length: 6 }, () => makeKey(app.t)));
  fx = { keys: scanner.keys, rawKeys: keys.map((k) => k.raw) };
});
afterAll(async () => {
  await app?.close();
  await scanner?.stop();
});

const RUNS = { numRuns: 120, timeLimitMs: 8_000 };
const contract = (req: FuzzRequest) => check(app, req);

describe('fuzzing POST /api/v1/secret-scanning/reports: no 5xx, no answer over its bound, no row written by a 4xx', () => {
  it('validly signed report bodies of every kind, reaching the parsing and revoking behind the signature', async () => {
    const seen = { ok: 0, revoked: 0, refused: 0 };
    const count = (ex: Exchange) => {
      if (ex.response.status === 200) seen.ok += 1;
      if (ex.response.status === 200 && ex.response.body.includes('true_positive')) seen.revoked += 1;
      if (ex.response.status === 400) seen.refused += 1;
    };
    exchangeListeners.add(count);
    try {
      await fuzz('leak reports signed', app.baseUrl, leakReportRequest(fx, true), contract, RUNS);
    } finally {
      exchangeListeners.delete(count);
    }
    // Past the signature: reports parsed and answered, bad ones refused for what they hold, live keys revoked.
    expect(seen.ok).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.revoked).toBeGreaterThan(0);
  });

  it('signatures, identifiers, Content-Type and body encodings', async () => {
    await fuzz('leak reports headers', app.baseUrl, leakReportRequest(fx, false), contract, { ...RUNS, numRuns: 60 });
  });
});
