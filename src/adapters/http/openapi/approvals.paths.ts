import { ApprovalDto } from '../dto/approval.dto';
import { idParameter, json, operation, queryParameter } from './operation';
import { schemaRef } from './dto-schemas';
import { arrayOf, Schema } from './schema-parts';

const tag = 'Approvals';

const decideDescription =
  'Only a pending, unexpired approval can be decided (409 otherwise); one the caller may not decide (not the key owner ' +
  "under an owner rule, not an admin under an admin rule) is a 404, as is an unknown id. The decision's audit event commits with it.";

export const approvalPaths: Record<string, Schema> = {
  '/api/v1/approvals': {
    get: operation({
      tag,
      operationId: 'listApprovals',
      summary: 'The pending approvals the caller may decide, newest first (at most 100)',
      description:
        "The caller's own keys' calls under owner rules; for an admin, every call under an admin rule too. Each with the tool, " +
        'the server, the arguments the call will run with, the rule and when it expires.',
      parameters: [
        queryParameter('user_id', "Only this user's keys' approvals (admins; anyone else gets only their own).", {
          type: 'string',
          format: 'uuid',
        }),
      ],
      ok: { 200: json('The pending approvals.', arrayOf(schemaRef(ApprovalDto))) },
      errors: [400, 401, 503],
    }),
  },
  '/api/v1/approvals/{id}/approve': {
    parameters: [idParameter],
    post: operation({
      tag,
      operationId: 'approveApproval',
      summary: 'Approve a held call: the same call by the same key then runs once',
      description: decideDescription,
      ok: { 200: json('The approval, granted.', schemaRef(ApprovalDto)) },
      errors: [400, 401, 404, 409, 503],
    }),
  },
  '/api/v1/approvals/{id}/deny': {
    parameters: [idParameter],
    post: operation({
      tag,
      operationId: 'denyApproval',
      summary: 'Deny a held call: the same call is refused until the approval expires',
      description: decideDescription,
      ok: { 200: json('The approval, denied.', schemaRef(ApprovalDto)) },
      errors: [400, 401, 404, 409, 503],
    }),
  },
};
