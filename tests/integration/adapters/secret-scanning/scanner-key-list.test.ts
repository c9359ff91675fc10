import http from 'node:http';
import { generateKeyPairSync, sign } from 'node:crypto';
import { EcdsaReportSignatureVerifier } from '../../../../src/adapters/secret-scanning/ecdsa-report-signature-verifier';
import { ScannerKeyList, ScannerKeyListOptions } from '../../../../src/adapters/secret-scanning/scanner-key-list';
import { listenLoopback, Loopback } from '../../../support/listen-loopback';
import { scannerKey } from '../../../support/test-secret-scanner';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let server: Loopback;
let url: string;
let handler: Handler;
let requests = 0;

beforeAll(async () => {
  const keys = http.createServer((req, res) => {
    requests += 1;
    handler(req, res);
  });
  server = await listenLoopback(keys);
  url = `${server.url}/keys`;
});
afterAll(() => server.close());

const pem = (key = scannerKey()) => key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const serve = (body: unknown) => {
  handler = (_req, res) => res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

function makeSut(options: Partial<ScannerKeyListOptions> = {}) {
  let now = 1_000_000;
  const warnings: string[] = [];
  const list = new ScannerKeyList({
    url,
    timeoutMs: 500,
    maxBytes: 4096,
    maxKeys: 3,
    refetchIntervalMs: 60_000,
    maxAgeMs: 3_600_000,
    now: () => now,
    warn: (message) => warnings.push(message),
    ...options,
  });
  return {
    list,
    warnings,
    advance: (ms: number) => {
      now += ms;
    },
    verifier: new EcdsaReportSignatureVerifier(list),
  };
}

describe('ScannerKeyList over HTTP', () => {
  it("reads GitHub's format, accepts current and previous keys, and verifies their signatures", async () => {
    const [old, current] = [scannerKey('old'), scannerKey('current')];
    serve({
      public_keys: [
        { key_identifier: 'old', key: pem(old), is_current: false },
        { key_identifier: 'current', key: pem(current), is_current: true },
      ],
    });
    const { verifier } = makeSut();
    const payload = Buffer.from('[]');
    for (const key of [old, current]) {
      const signature = sign('sha256', payload, key.privateKey).toString('base64');
      expect(await verifier.verify(payload, key.identifier, signature)).toEqual({ outcome: 'valid' });
      expect(await verifier.verify(Buffer.from('[ ]'), key.identifier, signature)).toEqual({ outcome: 'invalid' });
    }
  });

  it('leaves out entries that are not P-256 public keys, and says so', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' });
    serve({
      public_keys: [
        { key_identifier: 'rsa', key: rsa },
        { key_identifier: 'p384', key: p384 },
        { key_identifier: 'good', key: pem() },
      ],
    });
    const { list, warnings } = makeSut();
    expect(await list.keyFor('good')).toHaveProperty('found');
    expect(await list.keyFor('rsa')).toEqual({ missing: true });
    expect(warnings.join()).toContain('rsa, p384');
  });

  it.each([
    [
      'an HTTP error',
      () => {
        handler = (_req, res) => {
          res.statusCode = 500;
          res.end();
        };
      },
    ],
    ['a list larger than maxBytes', () => serve({ public_keys: [{ key_identifier: 'k', key: pem() }], padding: 'x'.repeat(5000) })],
    [
      'a list larger than maxBytes, sent without a length',
      () => {
        handler = (_req, res) => {
          res.write('{"public_keys":[],"padding":"');
          res.write('x'.repeat(5000));
          res.end('"}');
        };
      },
    ],
    ['more keys than maxKeys', () => serve({ public_keys: [1, 2, 3, 4].map((i) => ({ key_identifier: `k${i}`, key: pem() })) })],
    ['no usable key', () => serve({ public_keys: [{ key_identifier: 'k', key: 'not a pem' }] })],
    ['no JSON', () => serve('<html>')],
    [
      'an answer slower than the timeout',
      () => {
        handler = (_req, res) => setTimeout(() => res.end('{"public_keys":[]}'), 1500);
      },
    ],
  ])('is unavailable after %s, with the seconds until the next fetch', async (_case, arrange) => {
    arrange();
    const { list, warnings, advance } = makeSut();
    expect(await list.keyFor('k')).toEqual({ unavailable: true, retryAfterSeconds: 60 });
    advance(45_500);
    expect(await list.keyFor('k')).toEqual({ unavailable: true, retryAfterSeconds: 15 });
    expect(warnings).toHaveLength(1);
  });

  it('makes one fetch for many callers at once', async () => {
    serve({ public_keys: [{ key_identifier: 'k', key: pem() }] });
    const before = requests;
    const { list } = makeSut();
    const found = await Promise.all(Array.from({ length: 10 }, () => list.keyFor('k')));
    expect(found.every((f) => 'found' in f)).toBe(true);
    expect(requests).toBe(before + 1);
  });

  it('refetches a list older than maxAgeMs in the background, and then drops a key the scanner withdrew', async () => {
    serve({
      public_keys: [
        { key_identifier: 'a', key: pem() },
        { key_identifier: 'b', key: pem() },
      ],
    });
    const { list, advance } = makeSut({ maxAgeMs: 120_000 });
    expect(await list.keyFor('a')).toHaveProperty('found');
    serve({ public_keys: [{ key_identifier: 'b', key: pem() }] });
    advance(120_000);
    expect(await list.keyFor('a')).toHaveProperty('found'); // served from the cache while the fetch runs
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await list.keyFor('a')).toEqual({ missing: true });
  });

  it('refuses a malformed signature or identifier without fetching anything', async () => {
    serve({ public_keys: [{ key_identifier: 'k', key: pem() }] });
    const before = requests;
    const { verifier } = makeSut();
    expect(await verifier.verify(Buffer.from('[]'), 'k', 'not base64!')).toEqual({ outcome: 'invalid' });
    expect(await verifier.verify(Buffer.from('[]'), 'k', 'A'.repeat(200))).toEqual({ outcome: 'invalid' });
    expect(await verifier.verify(Buffer.from('[]'), 'k'.repeat(300), 'AAAA')).toEqual({ outcome: 'invalid' });
    expect(requests).toBe(before);
  });
});
