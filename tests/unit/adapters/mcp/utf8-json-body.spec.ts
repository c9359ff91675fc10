import { PassThrough } from 'node:stream';
import { Request } from 'express';
import { hasBody, mediaTypeVerdict, readUtf8Json } from '../../../../src/adapters/mcp/utf8-json-body';

function request(headers: Record<string, string>): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}

const read = (req: PassThrough & { headers: Record<string, string> }, limit = 100) => readUtf8Json(req as unknown as Request, limit);

describe('mediaTypeVerdict', () => {
  it.each([
    ['application/json', 'utf8-json'],
    ['Application/JSON; charset=UTF-8', 'utf8-json'],
    ['application/json;charset=utf8', 'utf8-json'],
    ['application/vnd.api+json', 'utf8-json'],
    ['application/json; charset=latin1', 'other-json'],
    ['application/json; charset=utf-16', 'other-json'],
    ['text/json', 'not-json'],
    ['application/jsonx', 'not-json'],
    ['text/plain', 'not-json'],
    ['application/', 'not-json'],
    ['', 'not-json'],
  ])('%j is %s', (contentType, verdict) => {
    expect(mediaTypeVerdict(contentType)).toBe(verdict);
  });
});

describe('hasBody', () => {
  it('is true with a Content-Length (even 0) or chunked encoding, false with neither', () => {
    expect(hasBody({ headers: { 'content-length': '0' } } as unknown as Request)).toBe(true);
    expect(hasBody({ headers: { 'transfer-encoding': 'chunked' } } as unknown as Request)).toBe(true);
    expect(hasBody({ headers: {} } as unknown as Request)).toBe(false);
  });
});

describe('readUtf8Json', () => {
  it('parses a body sent in several chunks, multi-byte characters split between them', async () => {
    const req = request({});
    const outcome = read(req);
    const bytes = Buffer.from('{"name":"čaj ☕"}');
    req.write(bytes.subarray(0, 10));
    req.end(bytes.subarray(10));
    await expect(outcome).resolves.toEqual({ kind: 'parsed', value: { name: 'čaj ☕' } });
  });

  it('reads any JSON value, an empty body as {}, and drops a byte-order mark', async () => {
    for (const [text, value] of [
      ['5', 5],
      ['"x"', 'x'],
      ['', {}],
      ['\ufeff[1]', [1]],
    ] as const) {
      const req = request({});
      const outcome = read(req);
      req.end(Buffer.from(text));
      await expect(outcome).resolves.toEqual({ kind: 'parsed', value });
    }
  });

  it('calls bytes that are not JSON unparseable', async () => {
    const req = request({});
    const outcome = read(req);
    req.end('{"a":');
    await expect(outcome).resolves.toEqual({ kind: 'unparseable' });
  });

  it('refuses a declared length past the limit without reading, and stops reading once past it', async () => {
    await expect(read(request({ 'content-length': '101' }))).resolves.toEqual({ kind: 'too-large' });
    const req = request({});
    const outcome = read(req);
    req.write('x'.repeat(60));
    req.write('x'.repeat(60));
    await expect(outcome).resolves.toEqual({ kind: 'too-large' });
    expect(req.listenerCount('data')).toBe(0);
  });

  it('says the request is gone when it is aborted before the end', async () => {
    const req = request({});
    const outcome = read(req);
    req.write('{"a"');
    req.emit('aborted');
    await expect(outcome).resolves.toEqual({ kind: 'gone' });
  });
});
