import { Response } from 'express';
import { FieldError } from '../../domain/errors';

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

export function sendProblem(res: Response, problem: Problem, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}
