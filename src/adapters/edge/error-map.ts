import { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { clipInput, DomainError } from '../../domain/errors';
import { HTTP_ERRORS, HttpAnswer } from './http-errors';
import { Problem, problemType, sendProblem } from './problem';
import { TooManyRequestsError } from './too-many-requests.error';

export interface ProblemAnswer {
  problem: Problem;
  headers: Record<string, string>;
}

/** Body-parser failures carry an HTTP status and a `type` of their own. */
interface HttpParserError {
  status?: number;
  type?: string;
}

/**
 * The one place that turns errors into HTTP answers: domain errors by their
 * code (HTTP_ERRORS), then the edge's own failures, then 500.
 */
export function toProblem(error: unknown): ProblemAnswer {
  if (error instanceof DomainError) {
    const answer: HttpAnswer<DomainError> = HTTP_ERRORS[error.code];
    const problem = make(answer.status, answer.slug, answer.title, error.message);
    if (answer.errors) problem.errors = answer.errors(error);
    return { problem, headers: answer.headers?.(error) ?? {} };
  }
  return edgeProblem(error) ?? { problem: make(500, 'internal', 'Internal Server Error', 'An unexpected error occurred'), headers: {} };
}

/** Failures that arise in Express, body-parser or the edge's middleware rather than in a use-case. */
function edgeProblem(error: unknown): ProblemAnswer | null {
  const answer = (status: number, slug: string, title: string, detail: string, headers: Record<string, string> = {}) => ({
    problem: make(status, slug, title, detail),
    headers,
  });
  if (error instanceof TooManyRequestsError) {
    return answer(429, 'too-many-requests', 'Too Many Requests', error.message, { 'Retry-After': String(error.retryAfterSeconds) });
  }
  const parser = error as HttpParserError;
  if (parser?.type === 'entity.parse.failed') return answer(400, 'malformed-json', 'Malformed JSON', 'The request body is not valid JSON');
  if (parser?.type === 'entity.too.large') return answer(413, 'body-too-large', 'Content Too Large', 'The request body exceeds 64 KiB');
  if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    return answer(415, 'unsupported-media-type', 'Unsupported Media Type', 'Send UTF-8 JSON');
  }
  // Express decodes route parameters itself; a malformed escape (`/api-keys/%ff`) throws a URIError that quotes the path.
  if (error instanceof URIError) return answer(400, 'malformed-path', 'Bad Request', 'The path holds a malformed percent-encoding');
  // Any other client error Express or body-parser reports (an aborted or mis-sized body): its status, not a 500.
  if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500) {
    return answer(parser.status, 'bad-request', 'Bad Request', 'The request could not be read');
  }
  return null;
}

function make(status: number, slug: string, title: string, detail: string): Problem {
  return { type: problemType(slug), title, status, detail };
}

export function errorHandler(log: (error: unknown, req: Request) => void): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const { problem, headers } = toProblem(error);
    if (problem.status >= 500) log(error, req);
    sendProblem(res, problem, headers);
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, {
    type: problemType('route-not-found'),
    title: 'Not Found',
    status: 404,
    detail: `No route for ${req.method} ${clipInput(req.path)}`,
  });
};
