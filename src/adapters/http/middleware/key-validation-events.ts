import { Response } from 'express';
import { KeyValidationOutcome } from '../../observability/metrics';

export type KeyValidationListener = (outcome: KeyValidationOutcome) => void;

const listeners = new WeakMap<Response, KeyValidationListener[]>();

/**
 * How app-level middleware (metrics, the failed-validation limit) learns what
 * api-key-auth decided for a request, without every router that validates keys
 * having to be handed those collaborators.
 */
export function onKeyValidation(res: Response, listener: KeyValidationListener): void {
  listeners.set(res, [...(listeners.get(res) ?? []), listener]);
}

export function reportKeyValidation(res: Response, outcome: KeyValidationOutcome): void {
  for (const listener of listeners.get(res) ?? []) listener(outcome);
}
