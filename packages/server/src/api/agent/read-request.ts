import type { Services } from '../../app/services.ts';
import { ApiError } from '../../errors/api-error.ts';
import { type ApprovalView, approvalView } from '../../views/request-views.ts';

/** The request as the ledger holds it now, for agent runtimes (no eligibility filter: they are inside the trust boundary). */
export async function readRequest(services: Services, requestId: string): Promise<ApprovalView> {
  let view: ApprovalView | undefined;
  try {
    const found = await services.gate.approvals.view(requestId);
    view = found === undefined ? undefined : await approvalView(services.gate, found);
  } catch {
    throw new ApiError('store_unavailable', 'the approval store is unavailable');
  }
  if (view === undefined) throw new ApiError('not_found', 'no such approval request');
  return view;
}
