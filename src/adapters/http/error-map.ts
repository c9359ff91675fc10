import { ErrorRequestHandler, Request, RequestHandler } from 'express';
import {
  clipInput,
  ConflictError,
  DatabaseUnavailableError,
  DomainError,
  ForbiddenError,
  InvalidAccessTokenError,
  InvalidApiKeyError,
  NotFoundError,
  ValidationError,
} from '../../domain/errors';
import { Problem, problemType, sendProblem } from './problem';
import { TooManyRequestsError } from './too-many-requests.error';

/** Body-parser failures carry an HTTP status and a `type` of their own. */
interface HttpParserError {
  status?: number;
  type?: string;
}

/** RFC 6750 section 3.1: a request without credentials gets the bare challenge, without an error code. */
function bearerChallenge(credentialsPresented: boolean): string {
  return credentialsPresented ? 'Bearer realm="keygate", error="invalid_token"' : 'Bearer realm="keygate"';
}

/** The one place that turns errors into HTTP answers. */
export function toProblem(error: unknown): { problem: Problem; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const make = (status: number, slug: string, title: string, detail: string): Problem => ({
    type: problemType(slug),
    title,
    status,
    detail,
  });
  if (error instanceof ValidationError) {
    return { problem: { ...make(400, 'validation-failed', 'Invalid request', error.message), errors: error.errors }, headers };
  }
  if (error instanceof InvalidAccessTokenError) {
    headers['WWW-Authenticate'] = bearerChallenge(error.presented);
    return { problem: make(401, 'invalid-access-token', 'Unauthorized', error.message), headers };
  }
  if (error instanceof InvalidApiKeyError) {
    headers['WWW-Authenticate'] = bearerChallenge(error.presented);
    return { problem: make(401, 'invalid-api-key', 'Unauthorized', error.message), headers };
  }
  if (error instanceof TooManyRequestsError) {
    headers['Retry-After'] = String(error.retryAfterSeconds);
    return { problem: make(429, 'too-many-requests', 'Too Many Requests', error.message), headers };
  }
  if (error instanceof ForbiddenError) return { problem: make(403, 'forbidden', 'Forbidden', error.message), headers };
  if (error instanceof NotFoundError) return { problem: make(404, 'not-found', 'Not Found', error.message), headers };
  if (error instanceof ConflictError) return { problem: make(409, 'conflict', 'Conflict', error.message), headers };
  if (error instanceof DatabaseUnavailableError) {
    headers['Retry-After'] = '1';
    return { problem: make(503, 'database-unavailable', 'Service Unavailable', error.message), headers };
  }
  if (error instanceof DomainError) return { problem: make(400, 'bad-request', 'Bad Request', error.message), headers };
  const parser = error as HttpParserError;
  if (parser?.type === 'entity.parse.failed') {
    return { problem: make(400, 'malformed-json', 'Malformed JSON', 'The request body is not valid JSON'), headers };
  }
  if (parser?.type === 'entity.too.large') {
    return { problem: make(413, 'body-too-large', 'Content Too Large', 'The request body exceeds 64 KiB'), headers };
  }
  if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    return { problem: make(415, 'unsupported-media-type', 'Unsupported Media Type', 'Send UTF-8 JSON'), headers };
  }
  // Express decodes route parameters itself; a malformed escape (`/api-keys/%ff`) throws a URIError that quotes the path.
  if (error instanceof URIError) {
    return { problem: make(400, 'malformed-path', 'Bad Request', 'The path holds a malformed percent-encoding'), headers };
  }
  // Any other client error Express or body-parser reports (an aborted or mis-sized body): its status, not a 500.
  if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500) {
    return { problem: make(parser.status, 'bad-request', 'Bad Request', 'The request could not be read'), headers };
  }
  return { problem: make(500, 'internal', 'Internal Server Error', 'An unexpected error occurred'), headers };
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
