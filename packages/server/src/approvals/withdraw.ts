import type { Approver } from '@countersign/core/gate';
import type { ApprovalRequest } from '@countersign/core/ledger';
import type { Services } from '../app/services.ts';
import { ApiError, OUTCOME_UNKNOWN_MESSAGE } from '../errors/api-error.ts';
import { eligibleView } from './eligible-view.ts';

export interface WithdrawSuccess {
  request: ApprovalRequest;
  auditRecorded?: false;
}

/**
 * Takes back the caller's own approval of a request still pending (n of m). A request
 * they may not decide reads as not found (like a decision); without an approval of
 * theirs on it: `no_approval` (409); no longer pending: `already_decided` or `expired` (409).
 */
export async function withdrawApproval(services: Services, approver: Approver, requestId: string): Promise<WithdrawSuccess> {
  await eligibleView(services, approver, requestId);
  const outcome = await services.gate.approvals.withdraw(approver, requestId);
  if (outcome.ok) return outcome.auditRecorded === false ? { request: outcome.request, auditRecorded: false } : { request: outcome.request };
  switch (outcome.reason) {
    case 'not_found':
    case 'not_eligible':
      throw new ApiError('not_found', 'no such approval request');
    case 'no_approval':
      throw new ApiError('no_approval', 'you have no approval on this request to withdraw');
    case 'already_decided':
    case 'expired':
      throw new ApiError(outcome.reason, outcome.message);
    case 'store_unavailable':
      throw new ApiError('store_unavailable', 'the approval store is unavailable');
    case 'outcome_unknown':
      throw new ApiError('store_unavailable', OUTCOME_UNKNOWN_MESSAGE);
  }
}
