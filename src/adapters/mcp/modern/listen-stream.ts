import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { Response } from 'express';
import { RpcId } from '../json-rpc';
import { EVENT_STREAM_HEADERS } from '../sessions/post-stream-resumption';

export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/**
 * The SSE answer to one subscriptions/listen: every message carries the
 * subscription id (the listen request's id) in `_meta`; a keep-alive comment
 * goes out every `keepAliveMs`; the client ends it by closing the stream,
 * keygate by the listen's own result (a graceful end: shutdown, a key that
 * stopped being usable) or by just closing. Only notifications travel here:
 * never progress, log messages or requests.
 */
export class ListenStream {
  private ended = false;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly closers: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    readonly subscriptionId: RpcId,
    keepAliveMs: number,
    private readonly serverInfo: { name: string; version: string },
  ) {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    res.flushHeaders();
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), keepAliveMs);
    // The open connection, not its timer, is what keeps a replica busy: a stream never holds shutdown.
    this.keepAlive.unref();
    res.on('close', () => this.end(false));
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Runs once when the stream ends, however it ends. */
  onEnd(closer: () => void): void {
    if (this.ended) return void closer();
    this.closers.push(closer);
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    const meta = typeof params._meta === 'object' && params._meta !== null ? params._meta : {};
    this.message({ jsonrpc: '2.0', method, params: { ...params, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: this.subscriptionId } } });
  }

  /** Ends the stream; `graceful` first sends the listen request's result, which tells the client the end was meant. */
  end(graceful: boolean): void {
    if (this.ended) return;
    if (graceful) {
      this.message({
        jsonrpc: '2.0',
        id: this.subscriptionId,
        result: {
          resultType: 'complete',
          _meta: { [SUBSCRIPTION_ID_META_KEY]: this.subscriptionId, [SERVER_INFO_META_KEY]: this.serverInfo },
        },
      });
    }
    this.ended = true;
    clearInterval(this.keepAlive);
    for (const closer of this.closers.splice(0)) closer();
    this.res.end();
  }

  private message(message: Record<string, unknown>): void {
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private write(frame: string): void {
    if (this.ended || this.res.writableEnded) return;
    this.res.write(frame);
  }
}
