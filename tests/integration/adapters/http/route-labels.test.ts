import express, { Request, Router } from 'express';
import request from 'supertest';
import { routePatternOf, trackRoutePatterns } from '../../../../src/adapters/edge/route-pattern';

/**
 * The labels depend on Express assigning req.baseUrl on entering a mount and
 * req.route on dispatching a route, and on those assignments reaching the
 * accessors trackRoutePatterns installs: if Express changes either, these fail.
 */
function makeSut() {
  const seen: { label: string; ownProperties: boolean }[] = [];
  const app = express();
  trackRoutePatterns(app);
  app.use((req, res, next) => {
    res.on('finish', () =>
      seen.push({ label: routePatternOf(req), ownProperties: Object.hasOwn(req, 'baseUrl') || Object.hasOwn(req, 'route') }),
    );
    next();
  });
  app.get('/top', (_req, res) => void res.end());
  // An error after the answer began: the error handler below passes it on, and Express's router runs off its end.
  app.get('/late', (_req, res, next) => {
    res.write('partial');
    next(new Error('late'));
  });
  const items = Router();
  items.get('/', (_req, res) => void res.end());
  items.get('/:id', (req) => {
    throw new Error(`no ${req.params.id}`);
  });
  const refuse = (req: Request) => {
    if (req.headers.authorization === undefined) throw new Error('refused');
  };
  app.use('/api', (_req, _res, next) => next());
  app.use('/api/items', (req, _res, next) => (refuse(req), next()), items);
  app.use((_req, res) => void res.status(404).end());
  app.use((error: unknown, _req: Request, res: express.Response, next: express.NextFunction) =>
    res.headersSent ? next(error) : void res.status(500).end(),
  );
  const get = async (path: string, authorised = true) => {
    const call = request(app).get(path);
    await (authorised ? call.set('Authorization', 'x') : call);
    return seen.pop()!;
  };
  const label = async (path: string, authorised = true) => (await get(path, authorised)).label;
  return { app, get, label };
}

describe('route labels', () => {
  it('labels a request by the route pattern under its mount', async () => {
    const { label } = makeSut();
    expect(await label('/top')).toBe('/top');
    expect(await label('/api/items')).toBe('/api/items');
  });

  it('keeps the pattern when an error leaves the router, though Express restores req.baseUrl', async () => {
    const { label } = makeSut();
    expect(await label('/api/items/42')).toBe('/api/items/:id');
  });

  it('falls back on the deepest mount entered, then on "unmatched"', async () => {
    const { label } = makeSut();
    expect(await label('/api/items/42', false)).toBe('/api/items');
    expect(await label('/api/nothing')).toBe('/api');
    expect(await label('/no/such/route')).toBe('unmatched');
  });

  it('lower-cases the mount path, which Express matches in any case', async () => {
    const { label } = makeSut();
    expect(await label('/API/Items/42')).toBe('/api/items/:id');
  });

  it('survives the router leaving with nothing to put back (an error after the answer began ends the connection)', async () => {
    const { app } = makeSut();
    await expect(request(app).get('/late')).rejects.toThrow();
  });

  it("adds neither property to the request: Express's assignments reach the accessors", async () => {
    const { get } = makeSut();
    expect(await get('/api/items/42')).toEqual({ label: '/api/items/:id', ownProperties: false });
  });
});
