import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { requestLogging } from '../../src/adapters/http/middleware/request-logging';

function appLoggingAt(level: string) {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(chunk.toString()), done()) });
  const app = express();
  app.use(requestLogging(app, pino({ level }, sink)));
  app.get('/ok', (req, res) => res.json({ id: req.id }));
  app.get('/boom', (req, res) => {
    req.log.error('handled failure');
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
    await request(app).get('/ok').expect(200);
    expect(lines).toHaveLength(1);
  });
});
