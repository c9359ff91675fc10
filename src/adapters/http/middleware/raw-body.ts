import express, { RequestHandler } from 'express';
import { problemType, sendProblem } from '../../edge/problem';

/**
 * The body as bytes (req.body a Buffer; none: an empty one), for routes whose
 * signature covers the exact bytes sent, of at most `maxBytes` (413 past it,
 * refused from Content-Length before reading when it is declared). A
 * compressed body is refused (415) rather than inflated, so what is verified
 * is what was sent and a small body cannot unpack into a large one.
 */
export function rawBody(maxBytes: number, limitText: string): RequestHandler {
  const parse = express.raw({ type: () => true, limit: maxBytes, inflate: false });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') {
        return sendProblem(res, {
          type: problemType('body-too-large'),
          title: 'Content Too Large',
          status: 413,
          detail: `The request body exceeds ${limitText}`,
        });
      }
      if (error) return next(error);
      if (!Buffer.isBuffer(req.body)) req.body = Buffer.alloc(0);
      next();
    });
  };
}
