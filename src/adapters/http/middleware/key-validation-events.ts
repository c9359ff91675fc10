import { Response } from 'express';
import { KeyValidationOutcome } from '../../observability/metrics';
import { stateOf } from './request-state';

/** Given the response too, so that one listener made up front serves every request. */
export type KeyValidationListener = (outcome: KeyValidationOutcome, res: Response) => void;

/**
 * How app-level middleware (metrics, the failed-validation limit) learns what
 * api-key-auth decided for a request, without every router that validates keys
 * having to be handed those collaborators.
 */
export function onKeyValidation(res: Response, listener: KeyValidationListener): void {
  (stateOf(res.req).keyValidationListeners ??= []).push(listener);
}

export function reportKeyValidation(res: Response, outcome: KeyValidationOutcome): void {
  for (const listener of stateOf(res.req).keyValidationListeners ?? []) listener(outcome, res);
}
