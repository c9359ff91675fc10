/**
 * `body` as it arrives, until it has carried more than `maxBytes`: then the
 * stream fails with `overLimit()` and the source is cancelled, so what lies
 * past the limit is never read (a reply of 150 MB costs `maxBytes` plus one
 * chunk, whoever reads it: JSON parsing or the SSE parser).
 */
export function byteLimited(body: ReadableStream<Uint8Array>, maxBytes: number, overLimit: () => Error): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(overLimit());
        else controller.enqueue(chunk);
      },
    }),
  );
}
