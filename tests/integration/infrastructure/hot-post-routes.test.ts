import express, { ErrorRequestHandler, Express, RequestHandler } from 'express';
import request from 'supertest';
import { routePatternOf, trackRoutePatterns } from '../../../src/adapters/edge/route-pattern';
import { literalPath, onePlainSegment, serveHotPosts } from '../../../src/infrastructure/server/hot-post-routes';

/**
 * serveHotPosts answers POST /mcp and /mcp/servers/<name> ahead of Express's
 * router. Two apps with the same middleware, one served by Express alone,
 * must give the same answers, labels and request values for every way a
 * handler can end (answer, throw, reject, next(error), next('route'), fall
 * off the end, fail after the answer began), and only exact URLs may skip
 * the router.
 */
interface Sut {
  app: Express;
  labels: string[];
}

function makeSut(hot: boolean): Sut {
  const labels: string[] = [];
  const app = express();
  app.set('query parser', 'simple');
  trackRoutePatterns(app);
  const everyRequest: RequestHandler[] = [
    (req, res, next) => {
      res.on('close', () => labels.push(routePatternOf(req)));
      next();
    },
    (_req, res, next) => {
      res.setHeader('X-Seen', 'yes');
      next();
    },
  ];
  const steps: RequestHandler[] = [
    (req, _res, next) => {
      if (req.headers['x-case'] === 'throw') throw new Error('thrown');
      next();
    },
    async (req, _res, next) => {
      if (req.headers['x-case'] === 'reject') throw new Error('rejected');
      next();
    },
    (req, res, next) => {
      const kase = req.headers['x-case'];
      if (kase === 'next-error') return next(new Error('passed on'));
      if (kase === 'route') return next('route');
      if (kase === 'fall-off') return next();
      if (kase === 'late') {
        res.write('{"partial":');
        return next(new Error('after the answer began'));
      }
      next();
    },
  ];
  const answer: RequestHandler = (req, res) =>
    void res.json({ params: req.params, baseUrl: req.baseUrl, originalUrl: req.originalUrl, path: req.path, ip: req.ip, query: req.query });
  const mcp = [...steps, answer];
  const servers = [...steps, answer];
  app.use(...everyRequest);
  app.route('/mcp').post(...mcp);
  app.route('/mcp/servers/:name').post(...servers);
  const notFound: RequestHandler = (_req, res) => void res.status(404).json({ error: 'no route' });
  const onError: ErrorRequestHandler = (error: Error, _req, res, next) => {
    if (res.headersSent) return next(error);
    res.status(500).json({ error: error.message });
  };
  app.use(notFound);
  app.use(onError);
  if (hot)
    serveHotPosts(app, {
      before: everyRequest,
      routes: [
        { pattern: '/mcp', match: literalPath('/mcp'), handlers: mcp },
        { pattern: '/mcp/servers/:name', match: onePlainSegment('/mcp/servers/', 'name'), handlers: servers },
      ],
      notFound,
      onError,
    });
  return { app, labels };
}

async function send(sut: Sut, path: string, kase?: string, method: 'post' | 'get' = 'post') {
  const call = request(sut.app)[method](path).set('Content-Type', 'application/json');
  if (kase) call.set('X-Case', kase);
  try {
    const answer = await call.send('{}');
    return { status: answer.status, body: answer.body as unknown, seen: answer.headers['x-seen'], label: await lastLabel(sut) };
  } catch (error) {
    return { failed: (error as { code?: string }).code ?? String(error), label: await lastLabel(sut) };
  }
}

async function lastLabel(sut: Sut): Promise<string | undefined> {
  for (let i = 0; i < 50 && sut.labels.length === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
  return sut.labels.pop();
}

const CASES: [string, string, string | undefined][] = [
  ['an answer', '/mcp', undefined],
  ["a server's name as the param", '/mcp/servers/alpha-1', undefined],
  ['a thrown error', '/mcp', 'throw'],
  ['a rejected promise', '/mcp/servers/alpha', 'reject'],
  ['next(error)', '/mcp', 'next-error'],
  ["next('route')", '/mcp', 'route'],
  ['a handler that falls off the end', '/mcp/servers/alpha', 'fall-off'],
];

describe('POST routes served ahead of the router', () => {
  it.each(CASES)('%s: the same answer, headers and route label as Express gives', async (_case, path, kase) => {
    const express = makeSut(false);
    const hot = makeSut(true);
    const routerHandle = jest.spyOn((hot.app as unknown as { router: { handle: () => void } }).router, 'handle');
    const expected = await send(express, path, kase);
    const got = await send(hot, path, kase);
    expect(got).toEqual(expected);
    expect(routerHandle).not.toHaveBeenCalled();
  });

  it('ends the connection when an error comes after the answer began, as Express does', async () => {
    const got = await send(makeSut(true), '/mcp', 'late');
    const expected = await send(makeSut(false), '/mcp', 'late');
    expect(expected.failed).toBeDefined();
    expect(got.failed).toBe(expected.failed);
  });

  it.each([
    ['a query string', '/mcp?x=1'],
    ['a trailing slash', '/mcp/'],
    ['upper case', '/MCP'],
    ['an encoded name', '/mcp/servers/a%20b'],
    ['a longer path', '/mcp/servers/a/b'],
  ])('leaves %s to the router, with the same answer', async (_case, path) => {
    const hot = makeSut(true);
    const routerHandle = jest.spyOn((hot.app as unknown as { router: { handle: () => void } }).router, 'handle');
    expect(await send(hot, path)).toEqual(await send(makeSut(false), path));
    expect(routerHandle).toHaveBeenCalledTimes(1);
  });

  it('leaves other methods to the router', async () => {
    const hot = makeSut(true);
    const routerHandle = jest.spyOn((hot.app as unknown as { router: { handle: () => void } }).router, 'handle');
    const got = await send(hot, '/mcp', undefined, 'get');
    expect(got).toMatchObject({ status: 404, label: 'unmatched' });
    expect(routerHandle).toHaveBeenCalledTimes(1);
  });
});
