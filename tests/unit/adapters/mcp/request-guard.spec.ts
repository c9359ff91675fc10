import { Request, Response } from 'express';
import { requestGuard } from '../../../../src/adapters/mcp/request-guard';

function run(headers: Record<string, string>, config = { allowedOrigins: [] as string[], allowedHosts: [] as string[] }) {
  let status = 0;
  let passed = false;
  const res = {
    status(s: number) {
      status = s;
      return this;
    },
    type() {
      return this;
    },
    send() {
      return this;
    },
  } as unknown as Response;
  requestGuard(config)({ headers } as Request, res, () => {
    passed = true;
  });
  return passed ? 'pass' : status;
}

describe('requestGuard', () => {
  it('passes requests without an Origin and loopback origins', () => {
    expect(run({})).toBe('pass');
    for (const origin of ['http://localhost:6274', 'https://127.0.0.1', 'http://[::1]:8080']) expect(run({ origin })).toBe('pass');
  });

  it('refuses other origins, an Origin equal to the Host included, unless configured', () => {
    expect(run({ origin: 'http://evil.example.com:8080', host: 'evil.example.com:8080' })).toBe(403);
    expect(run({ origin: 'null' })).toBe(403);
    expect(run({ origin: 'https://app.example.com' }, { allowedOrigins: ['https://app.example.com/'], allowedHosts: [] })).toBe('pass');
  });

  it('checks the Host only when hosts are configured, by name or name:port', () => {
    expect(run({ host: 'evil.example.com' })).toBe('pass');
    const config = { allowedOrigins: [], allowedHosts: ['localhost', '127.0.0.1:9000'] };
    expect(run({ host: 'localhost:8080' }, config)).toBe('pass');
    expect(run({ host: '127.0.0.1:9000' }, config)).toBe('pass');
    expect(run({ host: 'evil.example.com' }, config)).toBe(403);
    expect(run({}, config)).toBe(403);
  });
});
