import { effectiveStatus } from '../../ledger/effective-status.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import type { CallState } from './grant.ts';
import type { CallStatusResult } from '../common/port.ts';
import { errorMessage } from '../common/call-records.ts';

/**
 * Where a call stands, read from the ledger: `proposed` (never ran), `dispatched`
 * (authorized, no result: "ran, result unknown" after a crash; it will never be
 * authorized again), `succeeded` or `failed`. Only the agent that owns the call's run
 * sees it; for any other agent it is `not_found`. Never throws.
 */
export async function callStatus(deps: GateDeps, proposalId: string, agent: Agent = DEFAULT_AGENT): Promise<CallStatusResult> {
  try {
    const proposal = typeof proposalId === 'string' ? await deps.ledger.getProposal(proposalId) : undefined;
    if (proposal === undefined || !isOwnedBy(proposal.agent, agent)) return { ok: false, reason: 'not_found', message: 'no such call' };
    const request = await deps.ledger.findApprovalRequestByProposal(proposal.proposalId);
    const state: CallState = proposal.result?.status ?? proposal.state;
    return {
      ok: true,
      call: {
        proposalId: proposal.proposalId,
        runId: proposal.runId,
        callId: proposal.callId,
        toolName: proposal.toolName,
        argsDigest: proposal.argsDigest,
        state,
        ...(request === undefined
          ? {}
          : { request: { requestId: request.requestId, status: effectiveStatus(request, deps.clock()), expiresAt: request.expiresAt } }),
        ...(proposal.dispatchedAt === undefined ? {} : { dispatchedAt: proposal.dispatchedAt }),
        ...(proposal.result === undefined ? {} : { resultDigest: proposal.result.resultDigest, completedAt: proposal.result.at }),
      },
    };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}
