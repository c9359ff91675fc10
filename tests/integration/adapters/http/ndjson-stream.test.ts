import http from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { requestLogging } from '../../../../src/adapters/edge/request-logging';
import { streamNdjson } from '../../../../src/adapters/http/ndjson-stream';

const BATCHES = 100;
const LINE = 'x'.repeat(1000);
/** 256 items of about 1 KB: a quarter MB per batch, 25 MB if every batch were read. */
const BATCH = Array.from({ length: 256 }, (_, i) => i);

/** A real server streaming BATCHES batches (or failing after `failAfter`), counting how many were pulled. */
async function makeSut(failAfter = Infinity) {
  const state = { pulled: 0, finished: false, logs: [] as string[] };
  const app = express();
  const logger = pino({ level: 'error' }, { write: (line: string) => void state.logs.push(line) });
  app.use(requestLogging(app, logger));
  app.get('/', async (req, res) => {
    async function* batches() {
      try {
        for (let i = 0; i < BATCHES; i++) {
          if (i === failAfter) throw new Error('database went away');
          state.pulled += 1;
          yield BATCH;
        }
      } finally {
        state.finished = true;
      }
    }
    await streamNdjson(req, res, batches(), (n) => ({ n, pad: LINE }));
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const get = () =>
    new Promise<http.IncomingMessage>((resolve, reject) => http.get({ port, host: '127.0.0.1', path: '/' }, resolve).on('error', reject));
  return { state, get, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('streamNdjson over a real socket', () => {
  it('reads no further ahead than the client takes, then delivers every line once it reads', async () => {
    const sut = await makeSut();
    try {
      const res = await sut.get();
      expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      res.pause();
      await wait(300);
      // Socket buffers hold a few MB at most: far fewer batches than the 100 a writer ignoring 'drain' would pull.
      expect(sut.state.pulled).toBeLessThan(BATCHES / 2);
      let lines = 0;
      let rest = '';
      res.on('data', (chunk: Buffer) => {
        const parts = (rest + chunk.toString()).split('\n');
        rest = parts.pop()!;
        lines += parts.length;
      });
      res.resume();
      await new Promise((resolve) => res.on('end', resolve));
      expect(rest).toBe('');
      expect(lines).toBe(BATCHES * BATCH.length);
      expect(sut.state.finished).toBe(true);
    } finally {
      await sut.close();
    }
  });

  it('stops reading batches once the client goes away', async () => {
    const sut = await makeSut();
    try {
      const res = await sut.get();
      res.pause();
      await wait(100);
      res.destroy();
      for (let i = 0; i < 50 && !sut.state.finished; i++) await wait(20);
      expect(sut.state.finished).toBe(true);
      expect(sut.state.pulled).toBeLessThan(BATCHES);
    } finally {
      await sut.close();
    }
  });

  it('cuts the connection and logs when a batch fails after the first byte, so the body never looks complete', async () => {
    const sut = await makeSut(2);
    try {
      const res = await sut.get();
      const outcome = await new Promise<string>((resolve) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve('end'));
        res.on('error', () => resolve('error'));
        res.on('aborted', () => resolve('aborted'));
      });
      expect(outcome).not.toBe('end');
      expect(sut.state.logs.join('')).toMatch(/NDJSON stream failed after the first byte/);
      expect(sut.state.logs.join('')).toMatch(/database went away/);
    } finally {
      await sut.close();
    }
  });
});
