import { type Approver, mayDecide, type RequestView } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';
import { ApiError } from '../errors/api-error.ts';

/**
 * The request if this approver may decide it. A request they may not decide reads
 * exactly like one that does not exist, so its existence does not leak.
 */
export async function eligibleView(services: Services, approver: Approver, requestId: string): Promise<RequestView> {
  let view: RequestView | undefined;
  try {
    view = await services.gate.approvals.view(requestId);
  } catch {
    throw new ApiError('store_unavailable', 'the approval store is unavailable');
  }
  if (view === undefined || !mayDecide(view.request.eligible, approver, view.proposal.principal)) {
    throw new ApiError('not_found', 'no such approval request');
  }
  return view;
}
