import { FetchLike } from '@modelcontextprotocol/client';
import { Agent, fetch as undiciFetch } from 'undici';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { byteLimited } from './byte-limited-body';
import { LinkedAbort } from './linked-abort';

/** GETs resuming a POST's answer per contact: an upstream polling every few seconds through a long call stays well under. */
const MAX_RESUMPTIONS = 100;

/** Statuses whose Response may not have a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The fetch the SDK client of one session uses: connections go through the
 * pinned agent (checked addresses only), every reply (initialize, tools/list,
 * tools/call, errors; JSON or SSE) is cut off past `maxBytes`, and nothing is
 * sent once the session stopped. A refusal is handed to `refuse` as well as
 * thrown, because the SDK turns an error inside an SSE stream into a bare
 * disconnect and an aborted request into a timeout; the session rethrows it.
 */
export function upstreamFetch(agent: Agent, maxBytes: number, session: AbortSignal, refuse: (refusal: UpstreamRefusal) => void): FetchLike {
  let resumptions = 0;
  return async (url, init) => {
    // keygate never waits for messages the server starts, so the optional standalone
    // SSE stream (GET) is declined here as a server without one would: one request
    // less per contact, secrets included, and no open stream to police. A GET with
    // Last-Event-ID resumes the answer to one of keygate's own POSTs (SEP-1699), which
    // the call needs; an upstream closing it again and again gets a bounded number.
    if (init?.method === 'GET' && (!resumesAnswer(init) || ++resumptions > MAX_RESUMPTIONS)) return new Response(null, { status: 405 });
    session.throwIfAborted();
    // Not AbortSignal.any, which Node 20 may hold past the request (linked-abort.ts); nothing to dispose: no timer, and both sources end with the contact.
    const signal = init?.signal ? new LinkedAbort([init.signal, session]).signal : session;
    let response;
    try {
      response = await undiciFetch(url, { ...(init as object), signal, dispatcher: agent });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (!(cause instanceof UpstreamRefusal)) throw error;
      refuse(cause);
      throw cause;
    }
    const overLimit = () => {
      const refusal = new UpstreamRefusal(
        `upstream reply over MCP_UPSTREAM_MAX_BYTES (${maxBytes} bytes)`,
        `${new URL(url).host} sent a reply of more than ${maxBytes} bytes`,
      );
      refuse(refusal);
      return refusal;
    };
    if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
      await response.body?.cancel();
      throw overLimit();
    }
    if (NULL_BODY.has(response.status)) await response.body?.cancel();
    const body =
      response.body === null || NULL_BODY.has(response.status)
        ? null
        : byteLimited(response.body as ReadableStream<Uint8Array>, maxBytes, overLimit);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  };
}

function resumesAnswer(init: RequestInit): boolean {
  return new Headers(init.headers).has('last-event-id');
}

/** `fetch`, but its first POST is answered with `first` (already fetched for the same request), when there is one. */
export function answeredFirst(fetch: FetchLike, first: Response | undefined): FetchLike {
  let pending = first;
  return async (url, init) => {
    if (pending === undefined || init?.method !== 'POST') return fetch(url, init);
    const answer = pending;
    pending = undefined;
    return answer;
  };
}
