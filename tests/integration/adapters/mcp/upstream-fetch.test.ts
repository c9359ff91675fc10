import http from 'node:http';
import { UpstreamRefusal } from '../../../../src/application/ports/upstream-refusal';
import { pinnedAgent } from '../../../../src/adapters/mcp/upstream/pinned-agent';
import { Resolve, UpstreamAddressGuard } from '../../../../src/adapters/mcp/upstream/upstream-address-guard';
import { upstreamFetch } from '../../../../src/adapters/mcp/upstream/upstream-fetch';
import { listenLoopback, Loopback } from '../../../support/listen-loopback';

const MiB = 1024 * 1024;

/** A loopback server that records what reaches it; `/huge` streams 150 MB, with or without a Content-Length. */
let server: Loopback;
let port: number;
const seen: { method: string; host: string }[] = [];
let hugeBytesWritten = 0;
beforeAll(async () => {
  const upstream = http.createServer((req, res) => {
    seen.push({ method: req.method!, host: req.headers.host! });
    if (!req.url!.startsWith('/huge')) return void res.end('{"ok":true}');
    res.writeHead(200, {
      'Content-Type': 'application/json',
      ...(req.url === '/huge-declared' && { 'Content-Length': String(150 * MiB) }),
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (hugeBytesWritten < 150 * MiB && !res.destroyed) {
        hugeBytesWritten += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.write('{"tools":[');
    pump();
  });
  server = await listenLoopback(upstream);
  port = server.port;
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  hugeBytesWritten = 0;
});

function makeSut(allowlist: string[], names: Record<string, string[]>) {
  const lookups: string[] = [];
  const resolve: Resolve = async (hostname) => {
    lookups.push(hostname);
    return (names[hostname] ?? []).map((address) => ({ address, family: 4 }));
  };
  const refusals: UpstreamRefusal[] = [];
  const stop = new AbortController();
  const fetch = upstreamFetch(pinnedAgent(new UpstreamAddressGuard(allowlist, resolve), 2000), MiB, stop.signal, (r) => refusals.push(r));
  return { fetch, lookups, refusals };
}

describe('upstreamFetch through the pinned agent', () => {
  it('connects to the address the guard checked, keeping the name in Host', async () => {
    // `.test` names do not resolve in real DNS: reaching the server proves the connection used the guard's answer.
    const { fetch, lookups } = makeSut(['127.0.0.0/8'], { 'upstream.test': ['127.0.0.1'] });
    const response = await fetch(`http://upstream.test:${port}/mcp`, { method: 'POST', body: '{}' });
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toEqual([{ method: 'POST', host: `upstream.test:${port}` }]);
    expect(lookups).toEqual(['upstream.test']);
  });

  it('refuses a name that resolves to a refused address without connecting, and says nothing of the address', async () => {
    const { fetch, refusals } = makeSut([], { 'inside.test': ['127.0.0.1'] });
    const error = await fetch(`http://inside.test:${port}/mcp`, { method: 'POST', body: '{}' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UpstreamRefusal);
    expect((error as Error).message).toBe('upstream address not allowed');
    expect(refusals).toEqual([error]);
    expect(
      await makeSut([], {})
        .fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST' })
        .catch((e: Error) => e.message),
    ).toBe('upstream address not allowed');
    expect(seen).toEqual([]);
  });

  it('stops reading a 150 MB reply past MCP_UPSTREAM_MAX_BYTES', async () => {
    const { fetch, refusals } = makeSut(['127.0.0.0/8'], {});
    const response = await fetch(`http://127.0.0.1:${port}/huge`, { method: 'POST' });
    await expect(response.json()).rejects.toBeInstanceOf(UpstreamRefusal);
    expect(refusals[0].message).toBe(`upstream reply over MCP_UPSTREAM_MAX_BYTES (${MiB} bytes)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hugeBytesWritten).toBeLessThan(20 * MiB); // what sat in socket buffers when the connection was dropped
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const { fetch } = makeSut(['127.0.0.0/8'], {});
    await expect(fetch(`http://127.0.0.1:${port}/huge-declared`, { method: 'POST' })).rejects.toBeInstanceOf(UpstreamRefusal);
  });

  it('answers the optional GET stream itself, without contacting the upstream', async () => {
    const { fetch } = makeSut(['127.0.0.0/8'], {});
    expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET' })).status).toBe(405);
    expect(seen).toEqual([]);
  });

  it("lets a GET with Last-Event-ID resume a POST's answer, a bounded number of times per contact", async () => {
    const { fetch } = makeSut(['127.0.0.0/8'], {});
    const resume = () => fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET', headers: new Headers({ 'last-event-id': '7-9' }) });
    const before = seen.length;
    for (let i = 0; i < 100; i++) expect((await resume()).status).toBe(200);
    expect(seen.length - before).toBe(100);
    expect((await resume()).status).toBe(405);
    expect(seen.length - before).toBe(100);
  });
});
