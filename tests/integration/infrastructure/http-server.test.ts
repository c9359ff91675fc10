import { AddressInfo } from 'node:net';
import { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { createHttpServer } from '../../../src/infrastructure/server/http-server';

describe('createHttpServer', () => {
  it("makes each request and response with the served app's prototypes, so Express has none to change", async () => {
    const app = express();
    app.get('/who', (req, res) => void res.json({ app: req.app === app, path: req.path, viaResponse: res.app === app }));
    const { server, serve } = createHttpServer({ maxHeaderBytes: 16 * 1024 });
    const made: Array<{ request: boolean; response: boolean; node: boolean }> = [];
    // Runs before the app: what Node made, before Express could set anything.
    server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      made.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        node: req instanceof IncomingMessage && res instanceof ServerResponse,
      }),
    );
    serve(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const path of ['/who', '/who?x=1']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ app: true, path: '/who', viaResponse: true });
      }
      expect(made).toEqual([
        { request: true, response: true, node: true },
        { request: true, response: true, node: true },
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('still refuses a request whose headers pass the limit with 431, before any handler', async () => {
    const app = express();
    let handled = 0;
    app.use((_req, res) => {
      handled += 1;
      res.end();
    });
    const { server, serve } = createHttpServer({ maxHeaderBytes: 1024 });
    serve(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-padding': 'x'.repeat(2048) } });
      expect(res.status).toBe(431);
      expect(handled).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
