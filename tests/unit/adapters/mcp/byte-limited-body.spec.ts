import { byteLimited } from '../../../../src/adapters/mcp/upstream/byte-limited-body';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A body of `total` bytes made only as it is read; `pulled` says how much was. */
function lazyBody(total: number, fill = 0x20) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulled >= total) return controller.close();
        const size = Math.min(CHUNK, total - state.pulled);
        state.pulled += size;
        controller.enqueue(new Uint8Array(size).fill(fill));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state };
}

describe('byteLimited', () => {
  it('fails a 150 MB body past the limit after reading little more than the limit, and cancels the source', async () => {
    const { body, state } = lazyBody(150 * MiB);
    const over = new Error('over the limit');
    const reply = new Response(byteLimited(body, MiB, () => over));
    await expect(reply.json()).rejects.toBe(over);
    expect(state.pulled).toBeLessThanOrEqual(MiB + 2 * CHUNK);
    expect(state.cancelled).toBe(true);
  });

  it('fails an SSE reader the same way, whatever the framing', async () => {
    const { body, state } = lazyBody(150 * MiB, 0x61);
    const reader = byteLimited(body, MiB, () => new Error('over'))
      .pipeThrough(new TextDecoderStream())
      .getReader();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow('over');
    expect(state.pulled).toBeLessThanOrEqual(MiB + 2 * CHUNK);
  });

  it('passes a body within the limit through unchanged', async () => {
    const text = JSON.stringify({ tools: Array.from({ length: 100 }, (_, i) => ({ name: `t${i}` })) });
    const exact = new Response(byteLimited(new Response(text).body!, Buffer.byteLength(text), () => new Error('over')));
    expect(await exact.text()).toBe(text);
  });
});
