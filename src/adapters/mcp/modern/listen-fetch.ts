import { Agent, fetch as undiciFetch } from 'undici';

/** Statuses whose Response may not have a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const LF = 10;
const CR = 13;

/**
 * The fetch of a contact held for a subscriptions/listen stream: connections
 * through the pinned agent (checked addresses only), nothing sent once the
 * contact stopped, and, since such a reply lasts as long as the stream, a
 * bound per message rather than per reply: more than `maxBytes` without an
 * event ending (a blank line) fails the reply. A GET (the 2025 standalone
 * stream) is declined here: the 2025 contact reads that stream itself
 * (upstream-event-stream.ts), with its own reconnects.
 */
export function listenFetch(
  agent: Agent,
  maxBytes: number,
  stop: AbortSignal,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    if (init?.method === 'GET') return new Response(null, { status: 405 });
    stop.throwIfAborted();
    const signal = init?.signal ? AbortSignal.any([init.signal, stop]) : stop;
    const response = await undiciFetch(url, { ...(init as object), signal, dispatcher: agent });
    if (NULL_BODY.has(response.status)) await response.body?.cancel();
    const body =
      response.body === null || NULL_BODY.has(response.status)
        ? null
        : perMessage(response.body as ReadableStream<Uint8Array>, maxBytes, String(url));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  };
}

/** `body`, failing once more than `maxBytes` arrive without a blank line (the end of an SSE event, or of a JSON reply's single message). */
function perMessage(body: ReadableStream<Uint8Array>, maxBytes: number, url: string): ReadableStream<Uint8Array> {
  let pending = 0;
  let lineStart = true;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const byte of chunk) {
          if (byte === LF) {
            if (lineStart) pending = 0;
            lineStart = true;
          } else if (byte !== CR) {
            lineStart = false;
            pending++;
          }
        }
        if (pending > maxBytes)
          controller.error(new Error(`${new URL(url).host} sent a message of more than ${maxBytes} bytes (MCP_UPSTREAM_MAX_BYTES)`));
        else controller.enqueue(chunk);
      },
    }),
  );
}
