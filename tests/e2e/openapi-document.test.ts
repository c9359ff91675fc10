import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { openApiDocument } from '../../src/adapters/http/openapi/openapi-document';
import { OpenApiContract } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;

beforeAll(async () => {
  // With a key list URL the leak report route is mounted (the list is fetched only on a first report).
  t = await startTestApp({ SECRET_SCANNING_KEYS_URL: 'https://scanner.example.com/keys' });
});

afterAll(() => t.close());

interface Layer {
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** "METHOD /path/{param}" for every route Express has mounted, walking routers inside routers. */
function mountedRoutes(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    if (layer.route) {
      const path = (prefix + (layer.route.path === '/' ? '' : layer.route.path)).replace(/:(\w+)/g, '{$1}');
      return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
    }
    return layer.handle.stack ? mountedRoutes(layer.handle.stack, prefix + mount) : [];
  });
}

/** The document's operations; a route Express serves for every method (`_ALL`) is documented method by method. */
function documentedRoutes(): string[] {
  return Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => key !== 'parameters')
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

const described = (route: string) => /^\S+ \/(api\/v1|oauth\/introspect)(\/|$)/.test(route);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser), its $refs all resolve', async () => {
    const api = await SwaggerParser.validate(structuredClone(openApiDocument) as never);
    expect(api).toMatchObject({ openapi: '3.1.0' });
  });

  it('describes every route mounted under /api/v1 and /oauth/introspect, and no other', () => {
    const mounted = mountedRoutes((t.app as unknown as { router: { stack: Layer[] } }).router.stack).filter(described);
    const documented = documentedRoutes();
    const allMethods = mounted.filter((route) => route.startsWith('_ALL ')).map((route) => route.slice('_ALL '.length));
    const servedByAll = (route: string) => allMethods.some((path) => route.endsWith(` ${path}`));
    expect(mounted.filter((route) => !route.startsWith('_ALL ') && !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !mounted.includes(route) && !servedByAll(route))).toEqual([]);
    expect(mounted.length).toBeGreaterThan(25);
  });

  it('has no OPTIONS: the API answers it 404 like any undocumented method, with a JWT or without', async () => {
    const id = '0b5f3c1e-8d2a-4f6b-9c7d-1e2f3a4b5c6d';
    for (const path of ['/api/v1/api-keys', `/api/v1/api-keys/${id}`, `/api/v1/agent-roles/${id}`, '/oauth/introspect']) {
      const res = await request(t.app)
        .options(path)
        .set('Authorization', `Bearer ${t.adminToken()}`)
        .expect(404)
        .expect('Content-Type', /problem\+json/);
      expect(res.headers.allow).toBeUndefined();
    }
    await request(t.app).options('/api/v1/api-keys').expect(404);
  });

  it('is served at /api/v1/openapi.json without a JWT, cacheable, with a 304 for a current ETag', async () => {
    const res = await request(t.app)
      .get('/api/v1/openapi.json')
      .expect(200)
      .expect('Content-Type', /application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    await request(t.app).get('/api/v1/openapi.json').set('If-None-Match', res.headers.etag).expect(304);
  });

  it('renders at /docs from files of this origin under a CSP without inline script', async () => {
    const page = await request(t.app)
      .get('/docs')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
    for (const src of page.text.match(/(?<=(src|href)=")[^"]+/g) ?? []) {
      const asset = await request(t.app).get(src).expect(200);
      expect(asset.headers['content-security-policy']).toBe(csp);
    }
    const init = await request(t.app)
      .get('/docs/init.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    expect(init.text).toContain("url: '/api/v1/openapi.json'");
    await request(t.app).get('/docs/package.json').expect(404);
    await request(t.app).get('/docs/..%2Fpackage.json').expect(404);
  });
});

describe('the drift check', () => {
  const contract = new OpenApiContract();
  const problem = (status: number) => JSON.stringify({ type: 'urn:keygate:problem:not-found', title: 'Not Found', status, detail: 'x' });

  it('accepts an answer the document describes', () => {
    expect(
      contract.check({
        method: 'DELETE',
        path: '/api/v1/api-keys/0b5f',
        status: 404,
        contentType: 'application/problem+json; charset=utf-8',
        body: problem(404),
      }),
    ).toEqual([]);
  });

  it('names the route and status of an undocumented status, a wrong content type, a field the document lacks, and a bad NDJSON line', () => {
    expect(contract.check({ method: 'DELETE', path: '/api/v1/api-keys/1', status: 418, contentType: undefined, body: '' })).toEqual([
      'DELETE /api/v1/api-keys/{id} -> 418: status not documented',
    ]);
    expect(contract.check({ method: 'DELETE', path: '/api/v1/api-keys/1', status: 404, contentType: 'text/html', body: '<p>' })[0]).toMatch(
      /content type text\/html not documented/,
    );
    const extra = JSON.stringify({ ...JSON.parse(problem(404)), stack: 'at …' });
    expect(
      contract.check({
        method: 'DELETE',
        path: '/api/v1/api-keys/1',
        status: 404,
        contentType: 'application/problem+json',
        body: extra,
      })[0],
    ).toMatch(/DELETE \/api\/v1\/api-keys\/\{id\} -> 404: .*additional properties/);
    expect(
      contract.check({
        method: 'GET',
        path: '/api/v1/audit-events',
        status: 200,
        contentType: 'application/x-ndjson',
        body: '{"id":1}\n',
      })[0],
    ).toMatch(/GET \/api\/v1\/audit-events -> 200, line 1: /);
  });

  it('catches an answer to a route the document does not have at all', () => {
    expect(contract.check({ method: 'GET', path: '/api/v1/secrets', status: 200, contentType: 'application/json', body: '{}' })).toEqual([
      'GET /api/v1/secrets (no operation; x-unmatched-requests) -> 200: status not documented',
    ]);
    expect(
      contract.check({ method: 'PUT', path: '/api/v1/api-keys', status: 404, contentType: 'application/problem+json', body: problem(404) }),
    ).toEqual([]);
  });
});
