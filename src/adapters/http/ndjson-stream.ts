import { Request, Response } from 'express';
import { logOf } from '../edge/request-logging';

/**
 * Streams batches as NDJSON (one JSON value per line), waiting for 'drain'
 * whenever the socket's buffer is full and stopping as soon as the client is
 * gone. The first batch is read before the status is sent, so a failure there
 * is still an ordinary error answer; a failure after the first byte cannot be
 * one: it is logged and the connection is cut, so the client sees a truncated
 * chunked body instead of one that looks complete.
 */
export async function streamNdjson<T>(req: Request, res: Response, batches: AsyncIterable<T[]>, line: (item: T) => unknown): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  let next = await iterator.next();
  let gone = false;
  const onClose = () => (gone = true);
  res.on('close', onClose);
  res.status(200).setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.flushHeaders();
  try {
    while (!next.done && !gone) {
      for (const item of next.value) {
        if (gone) break;
        if (!res.write(`${JSON.stringify(line(item))}\n`)) await drained(res);
      }
      if (!gone) next = await iterator.next();
    }
    if (!gone) res.end();
  } catch (error) {
    logOf(req).error({ err: error }, 'NDJSON stream failed after the first byte');
    res.destroy();
  } finally {
    res.off('close', onClose);
    if (gone) await iterator.return?.(undefined);
  }
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
