import { effectiveStatus } from './effective-status.ts';
import type { ApprovalRequest, WithdrawApprovalResult } from './types.ts';

// Withdrawing one's own approval, in one place for every LedgerStore backend: each store
// runs this inside the same atomic step (event-loop turn, transaction, row lock) as
// `addDecision`, so a withdrawal and a concurrent approval never both count.

/**
 * Why `approver` cannot withdraw an approval of `request` at `now`, or undefined when
 * they can: only while the request is still pending (an approved request has a token
 * out; that is `revokeApproval`'s job), and only an approval this approver gave.
 */
export function withdrawalRefusal(
  request: ApprovalRequest,
  approver: string,
  now: number,
): Extract<WithdrawApprovalResult, { ok: false }>['reason'] | undefined {
  const status = effectiveStatus(request, now);
  if (status === 'expired') return 'expired';
  if (status !== 'pending') return 'already_decided';
  if (!request.decisions.some((d) => d.approver === approver && d.decision === 'approve')) return 'no_approval';
  return undefined;
}

/** The request's decisions without `approver`'s, in their order. */
export function decisionsWithout(request: ApprovalRequest, approver: string): ApprovalRequest['decisions'] {
  return request.decisions.filter((d) => d.approver !== approver);
}
