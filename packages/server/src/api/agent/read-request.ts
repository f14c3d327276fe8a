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
  const found = await services.gate.approvals.agentView(agent, requestId);
  if (found.ok) return approvalView(services.gate, found.view);
  if (found.reason === 'not_found') throw new ApiError('not_found', 'no such approval request');
  throw new ApiError('store_unavailable', 'the approval store is unavailable');
}
