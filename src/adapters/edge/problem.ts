import { Response } from 'express';
import { clipMessage, FieldError } from '../../domain/errors';
import { boundData, MAX_ERROR_BODY_BYTES, withinBudget } from './error-limits';

/** RFC 9457 problem details; every HTTP error of the service has this body. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemType(slug: string): string {
  return `urn:keygate:problem:${slug}`;
}

/** Every problem goes out through here, cut to the error bounds whatever built it. */
export function sendProblem(res: Response, problem: Problem, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res
    .status(problem.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(boundProblem(problem)));
}

export function boundProblem(problem: Problem): Problem {
  const bounded: Problem = { ...problem, title: clipMessage(problem.title), detail: clipMessage(problem.detail) };
  if (problem.errors !== undefined) bounded.errors = boundData(problem.errors) as FieldError[];
  return withinBudget(bounded, 'errors', MAX_ERROR_BODY_BYTES);
}
