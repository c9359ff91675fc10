import { ErrorRequestHandler, Request } from 'express';
import { toProblem } from '../../edge/error-map';

/**
 * Forward-auth answers carry status and headers only. Proxies read no more
 * (NGINX drops the body, Envoy and Traefik hand it to the end client), so
 * the statuses and headers are the error map's, and the problem body is left
 * out rather than shown to a client that never called keygate.
 */
export function bodilessErrors(log: (error: unknown, req: Request) => void): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const { problem, headers } = toProblem(error);
    if (problem.status >= 500) log(error, req);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(problem.status).end();
  };
}
