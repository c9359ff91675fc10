import http from 'node:http';
import { startService, waitForListening } from '../support/service-process';
import { serviceFixture } from '../support/service-fixture';

jest.setTimeout(60_000);

const fixture = serviceFixture('sigterm');

describe('SIGTERM', () => {
  it('finishes in-flight requests, writes the coalesced last_used_at and exits 0', async () => {
    const service = await waitForListening(startService(fixture.env({ LAST_USED_FLUSH_MS: '60000', LOG_LEVEL: 'warn' })));
    const auth = { Authorization: `Bearer ${fixture.idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const key = (await (
      await fetch(`${service.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"k"}' })
    ).json()) as { id: string; raw_key: string };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const before = Date.now();
    // A request whose body is still arriving when SIGTERM lands: the key was validated from its headers.
    const { port } = new URL(service.baseUrl);
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      headers: {
        'X-API-Key': key.raw_key,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 300));
    service.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(service.child.exitCode).toBeNull(); // still draining
    req.end(body.slice(10));
    expect(await response).toBe(200);
    expect(await service.exited).toBe(0);

    const [row] = await fixture.db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id]);
    expect(row.last_used_at).not.toBeNull();
    expect(new Date(row.last_used_at).getTime()).toBeGreaterThanOrEqual(before - 5);
  });
});
