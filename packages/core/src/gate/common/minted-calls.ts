import { sameCall } from '../../ledger/same-call.ts';
import type { ApprovalRequest, Proposal, ProposalWithRequest } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { HELD_LIMITS, HeldRows } from './held-rows.ts';

// A token fetched from another gate, process or replica finds nothing here, and authorize
// reads the ledger as before (as it does for a call forgotten past the limits).
const MINTED = new HeldRows<ProposalWithRequest>(HELD_LIMITS, (rows) => rows.proposal.canonicalArgs.length);

/**
 * The ledger's rows an approval token was just minted from (`issueToken`): the call and its
 * APPROVED request, as read. Every field authorize checks before the consume is one that
 * cannot change once the request is approved: a call's fields never change (only its state
 * and result), and an approved request's token id, approval time, expiry and decisions are
 * final; what can still change (the call consumed, the request revoked, consumed or
 * expired) is decided by the consume itself, on the locked rows, as always. So authorize of
 * the token this gate minted can check it against these rows instead of reading them again
 * (the way `complete` uses the grant authorize issued, see issued-grants.ts), and its
 * consume is its only ledger step.
 */
export function rememberMintedCall(deps: GateDeps, proposal: Proposal, request: ApprovalRequest): void {
  if (request.status !== 'approved') return;
  MINTED.hold(deps, proposal.proposalId, { proposal, request });
}

/**
 * The rows a token for `proposalId` was minted from by this gate, at most once: the entry
 * is spent on the first look, so a retried or repeated authorize reads the ledger.
 */
export function takeMintedCall(deps: GateDeps, proposalId: string): ProposalWithRequest | undefined {
  return MINTED.take(deps, proposalId);
}

/**
 * Whether the call a consume returned is the call its checks were made on: every field a
 * call is recorded with (all but its state, dispatch time and result) is equal. Checked
 * after every consume: a row edited in the store since it was read, or since the rows were
 * held (a token minted, a call recorded), is refused, never run.
 */
export function sameRecordedCall(consumed: Proposal, checked: Proposal): boolean {
  // The fields a re-recorded call is compared on (`sameCall`), and those a call gets from
  // how it was recorded rather than from the model's call.
  return (
    consumed.proposalId === checked.proposalId &&
    sameCall(consumed, checked) &&
    consumed.parentProposalId === checked.parentProposalId &&
    consumed.executedBy === checked.executedBy &&
    consumed.registeredBy === checked.registeredBy
  );
}
