import type { ApprovalStatus } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { type Approver, eligibilityOf, mayDecide } from './eligibility.ts';
import { errorMessage } from '../common/call-records.ts';
import type { ListResult, RequestView } from './types.ts';
import { viewOf } from './view-request.ts';

/** Requests this approver may decide (in `status`, at most `limit`), with their calls. */
export async function listRequests(deps: GateDeps, approver: Approver, status: ApprovalStatus = 'pending', limit = 100): Promise<ListResult> {
  try {
    const now = deps.clock();
    // The store filters by eligibility before the limit, so other requests can never crowd these out.
    const requests = await deps.ledger.listApprovalRequests({ status, limit, eligibleFor: eligibilityOf(approver) }, now);
    const views: RequestView[] = [];
    for (const request of requests) {
      const view = await viewOf(deps, request, now);
      if (view !== undefined && mayDecide(request.eligible, approver, view.proposal.principal)) views.push(view);
    }
    return { ok: true, views };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}

/**
 * How many requests wait for a decision now (pending, not expired), whoever may decide
 * them, counting at most `limit` (one bounded listing): for an operator's gauge. Rejects
 * when the store does.
 */
export async function countPendingRequests(deps: GateDeps, limit: number): Promise<number> {
  const requests = await deps.ledger.listApprovalRequests({ status: 'pending', limit }, deps.clock());
  return Math.min(requests.length, limit);
}
