import type { Proposal } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { errorMessage } from '../common/call-records.ts';
import { type RejectionOutcome, reject } from '../common/reject.ts';
import { settleLostWrite } from '../common/settle-lost-write.ts';

/**
 * The answer to an authorize whose consume failed with an error instead of an outcome.
 * An error does not mean nothing happened: a connection cut after COMMIT reached the
 * database loses only the reply, and the approval is spent. So the store is asked again
 * (a new read; a SQL store's failed connection is not reused) before anything is said:
 * - the call is still `proposed`: the consume did not commit, so `store_unavailable`
 *   (nothing is spent; authorizing again is safe);
 * - the call is `dispatched`, or the store cannot say: `outcome_unknown`. The approval may
 *   be spent (by this authorize or a concurrent one, which cannot be told apart), so no
 *   grant is handed out (at most once) and no refusal is claimed either: the agent reads
 *   the call's status (`callStatus`, `GET /api/v1/calls/:proposalId`).
 * Not audited as a rejection: nothing was refused, and the `dispatch` record, if the
 * consume committed, is already in the log with it.
 */
export async function answerLostConsume(deps: GateDeps, proposal: Proposal, error: unknown): Promise<RejectionOutcome> {
  // The one settle rule of every write (`settleLostWrite`): a call no longer `proposed` (or
  // gone) is a trace of a consume, whoever's; a read that fails says nothing.
  const settled = await settleLostWrite(async () => {
    const state = (await deps.ledger.getProposal(proposal.proposalId))?.state;
    return state === 'proposed' ? undefined : (state ?? 'missing');
  }, error);
  if (settled.settled === 'not_written') {
    return reject(deps, proposal, { status: 'not_approved', reason: 'store_unavailable' }, `ledger or audit store failed, nothing was consumed: ${errorMessage(error)}`);
  }
  return {
    status: 'not_approved',
    reason: 'outcome_unknown',
    proposalId: proposal.proposalId,
    message:
      `the store failed while consuming this call's approval and may have committed it (${errorMessage(error)}): ` +
      `read the call's status (GET /api/v1/calls/${proposal.proposalId}); it is never authorized twice`,
  };
}
