import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { logOf, requestIdOf, requestLogging } from '../../src/adapters/edge/request-logging';

function appLoggingAt(level: string) {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(chunk.toString()), done()) });
  const app = express();
  app.use(requestLogging(app, pino({ level }, sink)));
  app.get('/ok', (req, res) => res.json({ id: requestIdOf(req) }));
  app.get('/boom', (req, res) => {
    logOf(req).error('handled failure');
    res.status(500).end();
  });
  return { app, lines };
}

describe('request logging below info', () => {
  it('writes no request lines but still gives every request an id and a logger carrying it', async () => {
    const { app, lines } = appLoggingAt('warn');
    const ok = await request(app).get('/ok').set('X-Request-Id', 'trace-1').expect(200);
    expect(ok.headers['x-request-id']).toBe('trace-1');
    expect(ok.body.id).toBe('trace-1');
    const generated = await request(app).get('/ok').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines).toEqual([]);
    const boom = await request(app).get('/boom').expect(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(boom.headers['x-request-id']);
  });

  it('writes one line per request at info', async () => {
    const { app, lines } = appLoggingAt('info');
    await request(app).get('/ok?token=abc').expect(200);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', path: '/ok' },
      res: { statusCode: 200 },
    });
  });

  it('writes a 5xx at error level, after the line logged while handling it', async () => {
    const { app, lines } = appLoggingAt('info');
    const boom = await request(app).get('/boom').expect(500);
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed.map((line) => [line.level, line.msg])).toEqual([
      [50, 'handled failure'],
      [50, 'request errored'],
    ]);
    expect(parsed[1].req.id).toBe(boom.headers['x-request-id']);
  });

  it('writes a request the client gave up on at warn level', async () => {
    const { app, lines } = appLoggingAt('info');
    let answer: (() => void) | undefined;
    app.get('/slow', (_req, res) => void (answer = () => res.end()));
    const server = app.listen(0);
    const { port } = server.address() as AddressInfo;
    const client = http.get({ port, path: '/slow' }).on('error', () => undefined);
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    client.destroy();
    while (lines.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(JSON.parse(lines[0])).toMatchObject({ level: 40, msg: 'request aborted', req: { path: '/slow' } });
    answer();
    await new Promise((r) => server.close(r));
  });
});
