import { Request, Response } from 'express';
import { JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { KeyPrincipal } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { AuditOrigin } from '../../../domain/audit';
import { McpSession } from '../../../domain/mcp-session';
import { RPC } from '../json-rpc';
import { CONNECT_BY_TOOL_ERROR, ConnectPrompt } from '../mcp-error-map';
import { tracedRequest } from '../modern/forwarded-meta';
import { progressTokenOf } from '../modern/modern-relay';
import { isPlainCallParams } from '../modern/modern-tools-call-fast-path';
import { isPlainRequest } from '../tools-call-fast-path';
import { MAX_RESULT_RECORD_BYTES } from '../record-view';
import { SessionRelays } from '../relay/session-relays';
import { requestBase } from '../request-base';
import { writeSseHead } from '../rpc-answer';
import { RpcError } from '../rpc-error';
import { ToolCallParams, ToolCallRunner } from '../tool-call-runner';
import { AllowedCalls } from '../tool-gate';
import { PostStreams } from './post-streams';

/** What the SDK transport sends on a quiet SSE answer, and how often. */
const KEEP_ALIVE = ': keepalive\n\n';
const KEEP_ALIVE_MS = 15_000;

/**
 * A lone tools/call of an upstream tool in a session, answered as a stream:
 * the SDK server and transport built for it cost most of its CPU. Answered
 * here as they would (mcp-server.factory.ts, streamable-http.ts): the same
 * runner, relay and audit event; a priming event when the session's version
 * takes one; what the upstream sends meanwhile (progress, log messages, its
 * elicitation and sampling requests) as events of the same stream; then the
 * result or the error, with the ids and bytes the SDK writes. The answer is
 * resumable as the SDK's (post-streams.ts): a client that leaves does not end
 * the call, and its events go to the log.
 */
export class SessionToolCallFastPath {
  constructor(
    private readonly runner: ToolCallRunner,
    private readonly relays: SessionRelays,
    private readonly posts: PostStreams,
    private readonly log: (error: unknown) => void,
  ) {}

  async tryServe(
    req: Request,
    res: Response,
    principal: KeyPrincipal,
    messages: JSONRPCMessage[],
    calls: AllowedCalls,
    origin: AuditOrigin,
    session: McpSession,
  ): Promise<boolean> {
    if (Array.isArray(req.body) || messages.length !== 1) return false;
    const message = messages[0] as { method?: unknown; id?: unknown; params?: unknown };
    if (message.method !== 'tools/call' || !isSessionCall(message)) return false;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return false;
    const params = message.params as ToolCallParams & { _meta?: { progressToken?: unknown } };
    const target = calls.get(params.name);
    if (target === undefined || target === null || target.kind !== 'external') return false;
    const id = message.id as string | number;
    const post = this.posts.open(session, messages);
    const answer = new StreamedAnswer(res, post.store);
    res.on('close', () => {
      answer.stop();
      void post.closed(!res.writableFinished);
    });
    writeSseHead(res);
    // The head goes with the priming event; without one, at once, as the SDK transport's does.
    if (primes(session.protocolVersion)) await answer.prime(post.retryMs);
    else res.flushHeaders();
    const relay = this.relays.open({
      sessionId: session.id,
      callRequestId: id,
      progressToken: progressTokenOf(params._meta),
      send: (relayed) => answer.send(relayed as unknown as JSONRPCMessage),
    });
    const base = session.urlElicitation === true ? requestBase(req) : undefined;
    const prompt: ConnectPrompt = base === undefined ? CONNECT_BY_TOOL_ERROR : { kind: 'url-elicitation-error', base };
    let last: JSONRPCMessage;
    try {
      const upstream = { clientSessionId: session.id, relay, forwarded: tracedRequest(params._meta) };
      const result = await this.runner.run(principal, origin, calls, params, MAX_RESULT_RECORD_BYTES, upstream, prompt);
      last = { result, jsonrpc: '2.0', id } as unknown as JSONRPCMessage;
    } catch (error) {
      last = failure(id, error, this.log);
    } finally {
      relay.close();
    }
    await answer.send(last, true);
    return true;
  }
}

/** One SSE answer: each message stored (for its id) then written, in order; nothing written once the client has gone. */
class StreamedAnswer {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: Response,
    private readonly store: { storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> },
  ) {
    this.keepAlive = setInterval(() => this.write(KEEP_ALIVE), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  async prime(retryMs: number): Promise<void> {
    const eventId = await this.store.storeEvent('', {} as JSONRPCMessage);
    this.write(`id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** `last`: the answer ends with it (one write for the event and the end of the body). */
  send(message: JSONRPCMessage, last = false): Promise<void> {
    const sent = this.queue.then(async () => {
      const eventId = await this.store.storeEvent('', message);
      const event = `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`;
      if (!last) return this.write(event);
      this.stop();
      if (!this.res.writableEnded) this.res.end(event);
    });
    this.queue = sent.catch(() => undefined);
    return sent;
  }

  stop(): void {
    clearInterval(this.keepAlive);
  }

  private write(chunk: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(chunk);
  }
}

/** A handler's error as the SDK's Protocol sends it; what is not an RpcError was not meant for the client. */
function failure(id: string | number, error: unknown, log: (error: unknown) => void): JSONRPCMessage {
  let rpc = error as RpcError;
  if (!(error instanceof RpcError)) {
    log(error);
    rpc = new RpcError(RPC.INTERNAL_ERROR, 'Internal error');
  }
  const body = { code: rpc.code, message: rpc.message, ...(rpc.data !== undefined && { data: rpc.data }) };
  return { jsonrpc: '2.0', id, error: body } as unknown as JSONRPCMessage;
}

/** As the SDK transport decides: empty SSE data (a priming event) needs 2025-11-25 or later. */
function primes(protocolVersion: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) && protocolVersion >= '2025-11-25';
}

/** A request the SDK would hand to its tools/call handler as it is: an id, and params of a name, arguments and an object _meta only. */
function isSessionCall(message: Record<string, unknown>): boolean {
  if (!isPlainRequest(message) || !isPlainCallParams(message.params)) return false;
  const meta = (message.params as { _meta?: unknown })._meta;
  return meta === undefined || (typeof meta === 'object' && meta !== null && !Array.isArray(meta));
}
