import http from 'node:http';
import net from 'node:net';
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

  it('keeps an idle keep-alive connection through the drain: a request a proxy sends on it gets a whole answer, /readyz 503, Connection: close', async () => {
    const service = await waitForListening(startService(fixture.env({ LOG_LEVEL: 'warn' })));
    const { port } = new URL(service.baseUrl);
    // A proxy's pooled connection, idle once its first answer came.
    const pooled = new RawConnection(Number(port));
    await pooled.connected;
    expect(await pooled.request('GET /healthz HTTP/1.1\r\nHost: keygate\r\n\r\n')).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive/i);
    // A request in flight (its body still arriving) keeps the replica draining.
    const inFlight = http.request({
      host: '127.0.0.1',
      port,
      path: '/api/v1/api-keys',
      method: 'POST',
      agent: false,
      headers: {
        Authorization: `Bearer ${fixture.idp.token({ sub: crypto.randomUUID() })}`,
        'Content-Type': 'application/json',
        'Content-Length': 12,
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      inFlight.on('response', (res) => (res.resume(), resolve(res.statusCode!)));
      inFlight.on('error', reject);
    });
    inFlight.write('{"name"');
    await new Promise((r) => setTimeout(r, 300));
    service.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));

    const answer = await pooled.request('GET /readyz HTTP/1.1\r\nHost: keygate\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('This replica is shutting down');
    await pooled.closed;
    inFlight.end(':"k"}');
    expect(await answered).toBe(201);
    expect(await service.exited).toBe(0);
  });
});

/** One TCP connection spoken to by hand, as a proxy reuses a pooled one: each request's whole answer, and when the server closed it. */
class RawConnection {
  readonly connected: Promise<void>;
  readonly closed: Promise<void>;
  private readonly socket: net.Socket;
  private received = '';

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.on('data', (chunk: Buffer) => void (this.received += chunk.toString()));
    this.socket.on('error', () => undefined);
  }

  /** Sends `head` and waits for a whole answer (its Content-Length of body); rejects if the connection closes first. */
  async request(head: string): Promise<string> {
    this.received = '';
    this.socket.write(head);
    const deadline = Date.now() + 5000;
    for (;;) {
      const answer = whole(this.received);
      if (answer !== null) return answer;
      if (this.socket.destroyed || this.socket.readableEnded)
        throw new Error(`connection closed before a whole answer: ${JSON.stringify(this.received)}`);
      if (Date.now() > deadline) throw new Error(`no whole answer: ${JSON.stringify(this.received)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

function whole(received: string): string | null {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const length = /\r\ncontent-length: (\d+)/i.exec(received.slice(0, end));
  if (!length) return null;
  return Buffer.byteLength(received.slice(end + 4)) >= Number(length[1]) ? received : null;
}
