import { Request } from 'express';
import { parse as parseContentType } from 'content-type';
import { headerMemo } from './header-memo';

/** How a Content-Type reads for a JSON body: JSON in UTF-8, JSON in another charset, or not JSON. */
export type MediaTypeVerdict = 'utf8-json' | 'other-json' | 'not-json';

export type BodyOutcome =
  | { kind: 'parsed'; value: unknown }
  | { kind: 'too-large' }
  | { kind: 'unparseable' }
  /** The connection went away before the body ended: there is no one to answer. */
  | { kind: 'gone' };

/** What a Content-Type header means for a JSON body (memoized: see headerMemo). */
export const mediaTypeVerdict = headerMemo(judge);

function judge(contentType: string): MediaTypeVerdict {
  let type: string;
  let charset: string | undefined;
  try {
    const parsed = parseContentType(contentType);
    type = parsed.type;
    charset = parsed.parameters.charset?.toLowerCase();
  } catch {
    return 'not-json';
  }
  const [top, sub] = type.split('/');
  if (top !== 'application' || !(sub === 'json' || sub.endsWith('+json'))) return 'not-json';
  return charset === undefined || charset === 'utf-8' || charset === 'utf8' ? 'utf8-json' : 'other-json';
}

/** Whether a request has a body at all, as body-parser decides it (a Content-Length, even 0, or chunked). */
export function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/**
 * Reads an uncompressed UTF-8 body of at most `limit` bytes and parses it as
 * any JSON value, as body-parser's json (strict: false) does for such a body:
 * an empty body is `{}`, a byte-order mark is dropped. A declared length
 * past the limit is refused before a byte is read.
 */
export function readUtf8Json(req: Request, limit: number): Promise<BodyOutcome> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: BodyOutcome) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish({ kind: 'too-large' });
      chunks.push(chunk);
    };
    const onEnd = () => finish(parsed(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    const onGone = () => finish({ kind: 'gone' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
  });
}

function parsed(bytes: Buffer): BodyOutcome {
  if (bytes.length === 0) return { kind: 'parsed', value: {} };
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return { kind: 'parsed', value: JSON.parse(text) };
  } catch {
    return { kind: 'unparseable' };
  }
}
