import express, { RequestHandler } from 'express';
import { ValidationError } from '../../../domain/errors';
import { findBodyProblem } from '../../../domain/json-value';
import { problemType, sendProblem } from '../../edge/problem';

export const MAX_BODY_BYTES = 64 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: true, type: ['application/json', 'application/*+json'] });

/**
 * A body must be JSON (415 otherwise) of at most 64 KiB (413), nested at
 * most MAX_JSON_DEPTH deep and holding no text PostgreSQL cannot store, in
 * any string or key (400 naming where), parsed before the handler.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    return sendProblem(res, {
      type: problemType('unsupported-media-type'),
      title: 'Unsupported Media Type',
      status: 415,
      detail: 'The request body must be application/json',
    });
  }
  parseJson(req, res, (error?: unknown) => {
    if (error) return next(error);
    const problem = findBodyProblem(req.body, '');
    next(problem ? new ValidationError([problem]) : undefined);
  });
};
