import { Container } from 'inversify';
import { Express, RequestHandler } from 'express';
import { AppExtras, createApp } from '../../src/infrastructure/server/app';
import { ObservedResponse, OpenApiContract } from './openapi-contract';

/**
 * The drift check of the OpenAPI document: every answer to a path the
 * document covers, in-process (checkResponses, on every app the tests build)
 * or from a service process (checkFetchedResponses, on the global fetch), is
 * checked, and what departs from the document is kept here until the jest
 * setup file (openapi-drift.setup.ts) fails the test with it.
 */
let contract: OpenApiContract | undefined;
const violations: string[] = [];

export function isDocumentedPath(path: string): boolean {
  return /^\/(api\/v1|oauth\/introspect)(\/|$)/i.test(path);
}

export function recordResponse(observed: ObservedResponse): void {
  contract ??= new OpenApiContract();
  for (const violation of contract.check(observed)) if (!violations.includes(violation)) violations.push(violation);
}

export function takeViolations(): string[] {
  return violations.splice(0);
}

/** The app as createApp builds it, with checkResponses before the API. */
export function checkedApp(container: Container, extras: AppExtras = {}): Express {
  return createApp(container, { ...extras, before: [checkResponses, ...(extras.before ?? [])] });
}

/** Keeps the bytes an answer sends and checks them as it ends (a connection cut mid-stream is not an answer). */
export const checkResponses: RequestHandler = (req, res, next) => {
  if (!isDocumentedPath(req.path)) return next();
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  // The originals, re-applied to res with .call(this) below.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const { write, end } = res;
  let ended = false;
  res.write = function (this: typeof res, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: typeof res, chunk?: unknown, ...rest: unknown[]) {
    if (!ended) {
      ended = true;
      if (typeof chunk !== 'function') keep(chunk, rest[0]);
      const contentType = res.getHeader('Content-Type');
      recordResponse({
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
    }
    return (end as (...args: unknown[]) => typeof res).call(this, chunk, ...rest);
  } as typeof res.end;
  next();
};

/** Wraps the global fetch so that answers from service processes (and any app on a port) are checked too. */
export function checkFetchedResponses(): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    if (!isDocumentedPath(url.pathname)) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const observe = (body: string) =>
      recordResponse({
        method,
        path: url.pathname,
        status: response.status,
        contentType: response.headers.get('Content-Type') ?? undefined,
        body,
      });
    if (method === 'HEAD') observe('');
    // A stream is checked when it ends, without making the test wait for it.
    else if (response.headers.get('Content-Type')?.includes('ndjson'))
      void response
        .clone()
        .text()
        .then(observe, () => undefined);
    else observe(await response.clone().text());
    return response;
  };
}
