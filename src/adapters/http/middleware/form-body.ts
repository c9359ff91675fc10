import express, { RequestHandler } from 'express';
import { problemType, sendProblem } from '../../edge/problem';

/** A token request is one key (68 characters) and a hint: 4 KiB leaves room for encoding and nothing for abuse. */
export const MAX_FORM_BYTES = 4 * 1024;
const FORM_TYPE = 'application/x-www-form-urlencoded';

const parseForm = express.urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: 10, type: FORM_TYPE });

/**
 * An `application/x-www-form-urlencoded` body (RFC 7662 section 2.1): another
 * media type is 415, more than MAX_FORM_BYTES or 10 parameters 413. No body
 * at all leaves req.body empty, for the use-case to say what is missing.
 */
export const formBody: RequestHandler = (req, res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is(FORM_TYPE)) {
    return sendProblem(res, {
      type: problemType('unsupported-media-type'),
      title: 'Unsupported Media Type',
      status: 415,
      detail: `The request body must be ${FORM_TYPE}`,
    });
  }
  parseForm(req, res, (error?: unknown) => {
    const type = (error as { type?: string } | undefined)?.type;
    if (type === 'entity.too.large' || type === 'parameters.too.many') {
      return sendProblem(res, {
        type: problemType('body-too-large'),
        title: 'Content Too Large',
        status: 413,
        detail: `The form must stay within ${MAX_FORM_BYTES} bytes and 10 parameters`,
      });
    }
    req.body ??= {};
    next(error);
  });
};
