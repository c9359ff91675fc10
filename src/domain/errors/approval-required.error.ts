import { DomainError } from './domain-error';

/**
 * A call a require_approval rule holds until a person says yes: nothing ran.
 * It carries the pending approval's id and the console page where its
 * approver decides, never the call's arguments; the edge asks the client to
 * open the page in whatever way the client can take, as for a connection.
 */
export class ApprovalRequiredError extends DomainError {
  readonly code = 'APPROVAL.REQUIRED';

  constructor(
    readonly approvalId: string,
    readonly approvalUrl: string,
    readonly reason: string,
  ) {
    super(`This call needs approval (${reason}): ask for it at ${approvalUrl}, then make the same call again`);
  }
}
