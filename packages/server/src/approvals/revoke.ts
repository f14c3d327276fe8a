import type { Approver } from '@countersign/core/gate';
import type { ApprovalRequest } from '@countersign/core/ledger';
import type { Services } from '../app/services.ts';
import { ApiError, OUTCOME_UNKNOWN_MESSAGE } from '../errors/api-error.ts';
import { eligibleView } from './eligible-view.ts';

export interface RevokeSuccess {
  request: ApprovalRequest;
  auditRecorded?: false;
}

/**
 * Withdraws a request this approver may decide, while it is pending or approved and unused.
 * A request they may not decide reads as not found (like a decision); one already consumed,
 * denied, expired or revoked is `not_revocable` (409) with its status. A token already
 * fetched for it stops working: dispatch refuses a revoked request.
 */
export async function revokeRequest(services: Services, approver: Approver, requestId: string): Promise<RevokeSuccess> {
  await eligibleView(services, approver, requestId);
  const outcome = await services.gate.approvals.revoke(approver, requestId);
  if (outcome.ok) return outcome.auditRecorded === false ? { request: outcome.request, auditRecorded: false } : { request: outcome.request };
  switch (outcome.reason) {
    case 'not_found':
    case 'not_eligible':
      throw new ApiError('not_found', 'no such approval request');
    case 'not_revocable': {
      // About a request the caller may decide, so its status is theirs to know.
      const status = await currentStatus(services, requestId);
      if (status === 'consumed') throw new ApiError('already_consumed', 'the approval was already used; the call cannot be revoked', { requestStatus: status });
      throw new ApiError('not_revocable', `the request is ${status ?? 'no longer revocable'}; only a pending or approved request can be revoked`, { requestStatus: status });
    }
    case 'store_unavailable':
      throw new ApiError('store_unavailable', 'the approval store is unavailable');
    case 'outcome_unknown':
      throw new ApiError('store_unavailable', OUTCOME_UNKNOWN_MESSAGE);
  }
}

async function currentStatus(services: Services, requestId: string): Promise<string | undefined> {
  const found = await services.gate.approvals.view(requestId);
  return found.ok ? found.view.status : undefined;
}
