import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMcpHandler, McpHttpHandler } from '@modelcontextprotocol/server';
import { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { ResponseFormat } from '../streamable-http';
import { sendModernError } from '../era/modern-answer';
import { isUnavailable } from '../mcp-error-map';
import { ListenStreams } from './listen-streams';
import { ModernCall, ModernServerFactory } from './modern-server.factory';

/** Answers some 2026 requests itself, with the SDK leg's bytes; false leaves the request to the SDK leg. */
export interface ModernFastPath {
  tryServe(req: ExpressRequest, res: ExpressResponse, call: ModernCall, format: ResponseFormat): Promise<boolean>;
}

/** The standard request headers of 2026-07-28 the SDK checks again against the body. */
const FORWARDED_HEADERS = ['mcp-protocol-version', 'mcp-method', 'mcp-name'];

/**
 * Hands one 2026-07-28 POST, already through keygate's gates, to the SDK v2's
 * entry (createMcpHandler, 2025 requests refused: keygate routes those to
 * its sessions before this) and writes its answer back. The SDK builds a
 * server per request through a factory that only sees the web Request, so
 * each Request carries keygate's context for that request in a WeakMap.
 * An SSE-only client gets the SSE handler; any other the `auto` one, which
 * answers JSON unless a notification precedes the result. A lone tools/list,
 * or call of a built-in or (plain) upstream tool, wanting JSON is answered by
 * its fast path with the same bytes instead.
 */
export class ModernHttp {
  private readonly contexts = new WeakMap<Request, ModernCall>();
  /**
   * An outage the factory threw (the SDK answers that 500) or a handler met
   * (-32000 on 200), per Request: while the answer is not a stream yet, it is
   * thrown instead, for the edge to answer 503 with the id (mcp.controller.ts).
   */
  private readonly outages = new WeakMap<Request, unknown>();
  private readonly handlers: Record<ResponseFormat, McpHttpHandler>;

  constructor(
    servers: ModernServerFactory,
    private readonly fastPaths: readonly ModernFastPath[] = [],
    private readonly listens?: ListenStreams,
  ) {
    const factory = async (ctx: { requestInfo?: Request }) => {
      const request = ctx.requestInfo;
      const call = request === undefined ? undefined : this.contexts.get(request);
      if (call === undefined) throw new Error("A 2026 request reached the SDK without keygate's context");
      try {
        return await servers.create(call);
      } catch (error) {
        if (isUnavailable(error)) this.outages.set(request!, error);
        throw error;
      }
    };
    this.handlers = {
      json: createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto' }),
      sse: createMcpHandler(factory, { legacy: 'reject', responseMode: 'sse' }),
    };
  }

  async serve(req: ExpressRequest, res: ExpressResponse, call: ModernCall, format: ResponseFormat): Promise<void> {
    // keygate's own, per key and endpoint: the SDK's listen router has one bus for every stream.
    if (call.method === 'subscriptions/listen' && this.listens) {
      const { id, params } = req.body as { id?: string | number; params?: unknown };
      // Its answer is a stream and nothing else.
      if (id !== undefined && !call.streams)
        return sendModernError(res, {
          httpStatus: 406,
          id,
          code: -32000,
          message: 'Not Acceptable: subscriptions/listen answers as text/event-stream',
        });
      if (id !== undefined) return this.listens.serve(res, { principal: call.principal, view: call.view, id, params });
    }
    for (const fast of this.fastPaths) if (await fast.tryServe(req, res, call, format)) return;
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const request = new Request(new URL(req.originalUrl, 'http://keygate.invalid'), { method: 'POST', headers, signal: aborted.signal });
    this.contexts.set(request, { ...call, unavailable: (error) => this.outages.set(request, error) });
    const answer = await this.handlers[format].fetch(request, { parsedBody: req.body });
    if (this.outages.has(request) && !isEventStream(answer)) {
      await answer.body?.cancel().catch(() => undefined);
      throw this.outages.get(request);
    }
    res.status(answer.status);
    answer.headers.forEach((value, name) => res.setHeader(name, value));
    if (answer.body === null) return void res.end();
    await pipeline(Readable.fromWeb(answer.body), res).catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.handlers).map((handler) => handler.close()));
  }
}

function isEventStream(answer: Response): boolean {
  return answer.headers.get('content-type')?.startsWith('text/event-stream') === true;
}
