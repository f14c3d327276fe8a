import type { ApprovalRequest, Proposal, ProposalInput, RecordProposalResult } from '../../ledger/types.ts';
import { sameCall } from '../../ledger/same-call.ts';
import type { GateDeps } from '../config.ts';
import { settleLostWrite, type SettledWrite } from '../common/settle-lost-write.ts';

/** What an agent told `outcome_unknown` about a proposal does: proposing the same call again is idempotent. */
export const PROPOSE_AGAIN = 'propose the same call again (it answers as recorded) before doing anything else with it';

/**
 * A proposal write (the call, with the approval request it opens) that threw, settled on a
 * fresh read (`settleLostWrite`): the store holds this call with this content, so the
 * write took effect (or the call was already recorded: a re-proposal, answered as one),
 * or it does not. `value` is what `recordProposal` would have answered: `created` when
 * the stored call carries the id this write gave it, with the request it opened.
 */
export function settleLostProposal(deps: GateDeps, input: ProposalInput, opensRequest: boolean, error: unknown): Promise<SettledWrite<RecordProposalResult>> {
  return settleLostWrite(
    async (): Promise<RecordProposalResult | undefined> => {
      const stored = await deps.ledger.findProposalByCall(input.runId, input.callId);
      // Another call under this id is no trace of this write: nothing of it took effect.
      if (stored === undefined || !sameCall(stored, input)) return undefined;
      const created = stored.proposalId === input.proposalId;
      const request = created && opensRequest ? await deps.ledger.findApprovalRequestByProposal(stored.proposalId) : undefined;
      return { ok: true, proposal: stored, created, request };
    },
    error,
    PROPOSE_AGAIN,
  );
}

/**
 * An approval request opened for an already recorded call (`createApprovalRequest`) that
 * threw, settled on a fresh read: the call's request, if the store shows one, is the
 * one to wait for (this write's, or one a concurrent proposal of the same call opened).
 */
export function settleLostRequest(deps: GateDeps, proposal: Proposal, error: unknown): Promise<SettledWrite<ApprovalRequest>> {
  return settleLostWrite(() => deps.ledger.findApprovalRequestByProposal(proposal.proposalId), error, PROPOSE_AGAIN);
}
