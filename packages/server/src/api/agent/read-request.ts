import type { Agent } from '@countersign/core/gate';
import type { Services } from '../../app/services.ts';
import { ApiError } from '../../errors/api-error.ts';
import { type ApprovalView, approvalView } from '../../views/request-views.ts';

/**
 * The request as the ledger holds it now, for the agent runtime that owns its run (no
 * eligibility filter: it is inside the trust boundary). Another agent's request is a
 * 404, exactly like one that does not exist.
 */
export async function readRequest(services: Services, agent: Agent, requestId: string): Promise<ApprovalView> {
  let view: ApprovalView | undefined;
  try {
    const found = await services.gate.approvals.agentView(agent, requestId);
    view = found === undefined ? undefined : await approvalView(services.gate, found);
  } catch {
    throw new ApiError('store_unavailable', 'the approval store is unavailable');
  }
  if (view === undefined) throw new ApiError('not_found', 'no such approval request');
  return view;
}
