import { Response } from 'express';
import { KeyValidationOutcome } from '../observability/metrics';
import type { KeyValidationListener } from './key-validation-listener';
import { stateOf } from './request-state';

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
