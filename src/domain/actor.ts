import { AuditOrigin } from './audit';

/**
 * Who asks. Users come from a verified JWT; internal jobs build an admin actor
 * for themselves since they act for the platform.
 */
export interface Actor {
  userId: string;
  isAdmin: boolean;
  /** The request this actor is making, for the audit trail; absent for internal jobs. */
  origin?: AuditOrigin;
}

export function mayActFor(actor: Actor, userId: string): boolean {
  return actor.isAdmin || actor.userId === userId;
}
