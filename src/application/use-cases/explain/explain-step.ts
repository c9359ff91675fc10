/** How one step of a call's path judges it: lets it through, stops it, does not apply, or cannot tell without the arguments. */
export type StepOutcome = 'pass' | 'fail' | 'not_applicable' | 'needs_arguments';

/** One rule of the tool as explain saw it; `not_evaluated`: an earlier rule decided, as it would on the call. */
export interface ExplainedRule {
  index: number;
  effect: string;
  message: string;
  outcome: 'matched' | 'not_matched' | 'error' | 'needs_arguments' | 'not_evaluated';
  /** The library's text for an `error` (it may quote the arguments, which the asker gave). */
  error?: string;
}

/** The key's state: rolled when it has a successor, usable within the grace period the roll left. */
export interface KeyStanding {
  state: 'active' | 'expired' | 'revoked' | 'rolled';
  usable: boolean;
  expiresAt: Date | null;
  revokedAt: Date | null;
  replacedBy: string | null;
  /** A rolled key's end of overlap (its expiry then), when it had one. */
  graceEndsAt: Date | null;
}

export type ExplainStep =
  | { step: 'key'; outcome: StepOutcome; detail: string; key: KeyStanding }
  | { step: 'tool'; outcome: StepOutcome; detail: string }
  | {
      step: 'scope';
      outcome: StepOutcome;
      detail: string;
      required: readonly string[];
      granted: readonly string[];
      missing: readonly string[];
    }
  | { step: 'pin'; outcome: StepOutcome; detail: string; status?: 'approved' | 'changed' }
  /** The credential the upstream call would carry; `connectUrl`: where the key's owner connects. */
  | { step: 'connection'; outcome: StepOutcome; detail: string; connectUrl?: string }
  | { step: 'rules'; outcome: StepOutcome; detail: string; rules: ExplainedRule[] }
  | {
      step: 'rate_limit';
      outcome: StepOutcome;
      detail: string;
      remaining?: number;
      limit?: number;
      windowSeconds?: number;
      resetSeconds?: number;
    }
  | { step: 'quota'; outcome: StepOutcome; detail: string; remaining?: number }
  /**
   * `approval`, when one is needed: the approval this very call (key, tool, argument digest, record version) would
   * meet — `granted` (the call would run, once), `pending`, `denied` — or `needed` (none: the call would ask for one).
   */
  | { step: 'approval'; outcome: StepOutcome; detail: string; needed: boolean; approval?: ApprovalStanding; approvalId?: string };

export type ApprovalStanding = 'needed' | 'pending' | 'granted' | 'denied';

export type ExplainStepName = ExplainStep['step'];
