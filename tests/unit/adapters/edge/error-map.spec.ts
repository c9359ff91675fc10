import { Request, Response } from 'express';
import { errorHandler, toProblem } from '../../../../src/adapters/edge/error-map';
import { TooManyRequestsError } from '../../../../src/adapters/edge/too-many-requests.error';
import { ERROR_CODES, ErrorCode, InvalidAccessTokenError, InvalidApiKeyError } from '../../../../src/domain/errors';
import { DomainErrorMother } from '../../../mothers/domain-error.mother';

interface Expected {
  status: number;
  slug: string;
  title: string;
  headers?: Record<string, string>;
}

// Keyed by ErrorCode and checked for every entry of ERROR_CODES, so a new code fails here until it has its answer.
const EXPECTED: Record<ErrorCode, Expected> = {
  'VALIDATION.FAILED': { status: 400, slug: 'validation-failed', title: 'Invalid request' },
  'HEADER_FIELD.INVALID': { status: 400, slug: 'validation-failed', title: 'Invalid request' },
  'ACCESS_TOKEN.INVALID': {
    status: 401,
    slug: 'invalid-access-token',
    title: 'Unauthorized',
    headers: { 'WWW-Authenticate': 'Bearer realm="keygate", error="invalid_token"' },
  },
  'API_KEY.INVALID': {
    status: 401,
    slug: 'invalid-api-key',
    title: 'Unauthorized',
    headers: { 'WWW-Authenticate': 'Bearer realm="keygate", error="invalid_token"' },
  },
  'ACCESS.FORBIDDEN': { status: 403, slug: 'forbidden', title: 'Forbidden' },
  'SCOPE.INSUFFICIENT': {
    status: 403,
    slug: 'insufficient-scope',
    title: 'Forbidden',
    headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="agents:write chat:read"' },
  },
  'RESOURCE.NOT_FOUND': { status: 404, slug: 'not-found', title: 'Not Found' },
  'TOOL.UNKNOWN': { status: 404, slug: 'unknown-tool', title: 'Not Found' },
  'MCP_RESOURCE.UNKNOWN': { status: 404, slug: 'unknown-resource', title: 'Not Found' },
  'MCP_REFERENCE.UNKNOWN': { status: 404, slug: 'unknown-reference', title: 'Not Found' },
  'UPSTREAM.FAILED': { status: 502, slug: 'upstream-failed', title: 'Bad Gateway' },
  'MCP_SUBSCRIPTION.LIMIT': { status: 409, slug: 'subscription-limit', title: 'Conflict' },
  'MCP_CONNECTION.REQUIRED': { status: 409, slug: 'connection-required', title: 'Conflict' },
  'APPROVAL.REQUIRED': { status: 409, slug: 'approval-required', title: 'Conflict' },
  'STATE.CONFLICT': { status: 409, slug: 'conflict', title: 'Conflict' },
  'DATABASE.UNAVAILABLE': { status: 503, slug: 'database-unavailable', title: 'Service Unavailable', headers: { 'Retry-After': '1' } },
  'SIGNATURE.INVALID': { status: 401, slug: 'invalid-signature', title: 'Unauthorized' },
  'SIGNING_KEYS.UNAVAILABLE': {
    status: 503,
    slug: 'signing-keys-unavailable',
    title: 'Service Unavailable',
    headers: { 'Retry-After': '42' },
  },
  'RATE_LIMIT.EXCEEDED': {
    status: 429,
    slug: 'rate-limited',
    title: 'Too Many Requests',
    headers: { 'Retry-After': '17', 'RateLimit-Policy': '"key";q=100;w=60', RateLimit: '"key";r=0;t=17' },
  },
  'QUOTA.EXHAUSTED': { status: 429, slug: 'quota-exhausted', title: 'Too Many Requests' },
};

describe('toProblem for domain errors', () => {
  it.each(ERROR_CODES)('answers %s by its code, the message as detail', (code) => {
    const error = DomainErrorMother[code]();
    const expected = EXPECTED[code];
    expect(expected).toBeDefined();
    const { problem, headers } = toProblem(error);
    expect(problem).toMatchObject({
      type: `urn:keygate:problem:${expected.slug}`,
      title: expected.title,
      status: expected.status,
      detail: error.message,
    });
    expect(headers).toEqual(expected.headers ?? {});
  });

  it("lists a validation error's fields in errors (a header field's too), and no other problem has errors", () => {
    expect(toProblem(DomainErrorMother['VALIDATION.FAILED']()).problem.errors).toEqual([{ field: 'name', message: 'must not be blank' }]);
    expect(toProblem(DomainErrorMother['HEADER_FIELD.INVALID']()).problem.errors).toEqual([
      { field: 'data.headers.Authorization', message: 'is not an HTTP header value' },
    ]);
    const others = ERROR_CODES.filter((code) => code !== 'VALIDATION.FAILED' && code !== 'HEADER_FIELD.INVALID');
    expect(others.map((code) => toProblem(DomainErrorMother[code]()).problem.errors)).toEqual(others.map(() => undefined));
  });

  it('sends the bare challenge when no credentials came with the request (RFC 6750 3.1)', () => {
    expect(toProblem(new InvalidApiKeyError(false)).headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="keygate"' });
    expect(toProblem(new InvalidAccessTokenError('required', false)).headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="keygate"' });
  });

  it("tells an outage in fixed words, never the driver's", () => {
    expect(toProblem(DomainErrorMother['DATABASE.UNAVAILABLE']()).problem.detail).toBe('The database is not reachable; retry shortly');
  });
});

describe('toProblem for failures outside the domain', () => {
  const parserError = (type: string, status: number) => Object.assign(new Error('parser'), { type, status });

  it.each([
    ['the failed-validation limit', new TooManyRequestsError(42), 429, 'too-many-requests', 'Too Many Requests', { 'Retry-After': '42' }],
    ['a body that is not JSON', parserError('entity.parse.failed', 400), 400, 'malformed-json', 'Malformed JSON', {}],
    ['a body over 64 KiB', parserError('entity.too.large', 413), 413, 'body-too-large', 'Content Too Large', {}],
    ['an unsupported encoding', parserError('encoding.unsupported', 415), 415, 'unsupported-media-type', 'Unsupported Media Type', {}],
    ['an unsupported charset', parserError('charset.unsupported', 415), 415, 'unsupported-media-type', 'Unsupported Media Type', {}],
    ['a malformed percent-encoding', new URIError('URI malformed: /api-keys/%ff'), 400, 'malformed-path', 'Bad Request', {}],
    ['an aborted body', parserError('request.aborted', 400), 400, 'bad-request', 'Bad Request', {}],
    ['anything else', new Error('connection string postgres://secret'), 500, 'internal', 'Internal Server Error', {}],
    ['a server error with a status', parserError('stream.not.readable', 500), 500, 'internal', 'Internal Server Error', {}],
  ])('answers %s', (_what, error, status, slug, title, headers) => {
    const answer = toProblem(error);
    expect(answer.problem).toMatchObject({ type: `urn:keygate:problem:${slug}`, title, status });
    expect(answer.headers).toEqual(headers);
  });

  it('never quotes an unexpected error or a path', () => {
    expect(toProblem(new Error('connection string postgres://secret')).problem.detail).toBe('An unexpected error occurred');
    expect(toProblem(new URIError('URI malformed: /api-keys/%ff')).problem.detail).not.toContain('%ff');
  });
});

describe('errorHandler', () => {
  function makeSut() {
    const logged: unknown[] = [];
    const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
    const res = {
      headersSent: false,
      setHeader: (name: string, value: string) => void (sent.headers[name] = value),
      status(code: number) {
        sent.status = code;
        return this;
      },
      type() {
        return this;
      },
      send(body: string) {
        sent.body = body;
        return this;
      },
    } as unknown as Response;
    const handle = (error: unknown) => errorHandler((e) => logged.push(e))(error, {} as Request, res, () => undefined);
    return { logged, sent, handle };
  }

  it('logs server-side failures (5xx) only, and sends the problem with its headers', () => {
    const { logged, sent, handle } = makeSut();
    const outage = DomainErrorMother['DATABASE.UNAVAILABLE']();
    handle(DomainErrorMother['API_KEY.INVALID']());
    expect(logged).toEqual([]);
    handle(outage);
    expect(logged).toEqual([outage]);
    expect(sent).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    expect(JSON.parse(sent.body!)).toMatchObject({ type: 'urn:keygate:problem:database-unavailable' });
  });
});
