import type { Response } from 'express';
import type { KeyValidationOutcome } from '../observability/metrics';

/**
 * Given the response too, so that one listener made up front serves every request.
 * A module of its own because both request-state (which stores the listeners)
 * and key-validation-events (which calls them) need it; either holding it made a cycle.
 */
export type KeyValidationListener = (outcome: KeyValidationOutcome, res: Response) => void;
