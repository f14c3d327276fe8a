import { type Approver, mayDecide, type RequestView } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';
import { ApiError } from '../errors/api-error.ts';

/**
 * The request if this approver may decide it. A request they may not decide reads
 * exactly like one that does not exist, so its existence does not leak.
 */
export async function eligibleView(services: Services, approver: Approver, requestId: string): Promise<RequestView> {
  const found = await services.gate.approvals.view(requestId);
  if (!found.ok && found.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
  if (!found.ok || !mayDecide(found.view.request.eligible, approver, found.view.proposal.principal)) {
    throw new ApiError('not_found', 'no such approval request');
  }
  return found.view;
}
