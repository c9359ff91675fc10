import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { headerMemo } from './header-memo';
import { withLegacyResourceNotFound } from './legacy-resource-not-found';
import { ResumablePost } from './sessions/post-streams';

export type ResponseFormat = 'json' | 'sse';

/**
 * The client's Accept decides: JSON when it takes JSON (or sends no Accept, as
 * curl users do), SSE when it takes only an event stream, null when neither.
 */
export function responseFormat(accept: string | undefined): ResponseFormat | null {
  return accept === undefined ? 'json' : formatOf(accept);
}

const formatOf = headerMemo(negotiate);

function negotiate(accept: string): ResponseFormat | null {
  if (accept.trim() === '') return 'json';
  const ranges = accept
    .split(',')
    .map((part) => {
      const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { type, refused: q !== undefined && Number(q.slice(2)) === 0 };
    })
    .filter((r) => !r.refused)
    .map((r) => r.type);
  if (ranges.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*')) return 'json';
  if (ranges.some((t) => t === 'text/event-stream' || t === 'text/*')) return 'sse';
  return null;
}

/**
 * Hands one parsed POST to the SDK's Streamable HTTP transport in stateless
 * mode and writes its answer back. The web-standard transport is used so that
 * we, not the transport, decide JSON or SSE: it insists on an Accept listing
 * both, which we have already checked our own way.
 *
 * `resumable` (an SSE answer in a session): the transport writes a priming
 * event with `retry:` and hands every event to the POST's store, and a
 * client that goes away no longer ends the call: its events go to the
 * session's log, it runs on (within its own deadline, bounded again by the
 * longest call) and its result lands in the log for a GET with
 * Last-Event-ID. A notifications/cancelled still cancels it.
 */
export async function serveStreamableHttp(
  server: Server,
  req: ExpressRequest,
  res: ExpressResponse,
  body: unknown,
  format: ResponseFormat,
  resumable?: ResumablePost,
): Promise<void> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: format === 'json',
    ...(resumable && format === 'sse' ? { eventStore: resumable.store, retryInterval: resumable.retryMs } : {}),
  });
  const close = () => {
    void transport.close();
    void server.close();
  };
  // writableFinished: the whole answer reached the socket; without it the client left early and may resume.
  res.on('close', resumable && format === 'sse' ? () => void resumable.closed(!res.writableFinished).then(close) : close);
  await server.connect(transport);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withLegacyResourceNotFound(server, message), options);
  const headers = new Headers();
  const protocolVersion = resumable?.protocolVersion ?? req.headers['mcp-protocol-version'];
  if (typeof protocolVersion === 'string') headers.set('mcp-protocol-version', protocolVersion);
  headers.set('accept', 'application/json, text/event-stream');
  headers.set('content-type', 'application/json');
  const url = new URL(req.originalUrl, 'http://keygate.invalid');
  const answer = await transport.handleRequest(new Request(url, { method: 'POST', headers }), { parsedBody: body });
  res.status(answer.status);
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  if (answer.body === null) return void res.end();
  // pipeline, not pipe: a client gone cancels the web stream, which tells the transport to store what follows instead of writing it.
  await pipeline(Readable.fromWeb(answer.body), res).catch(() => undefined);
}
