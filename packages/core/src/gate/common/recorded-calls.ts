import type { Proposal } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { HELD_LIMITS, HeldRows } from './held-rows.ts';

// A call forgotten past the limits is read from the ledger as before.
const RECORDED = new HeldRows<Proposal>(HELD_LIMITS, (proposal) => proposal.canonicalArgs.length);

/**
 * A call policy allowed, as this gate's propose has just recorded it (created by that write,
 * `proposed`, no approval request, run by the runtime): what the ledger holds for it, field
 * for field (`recordedProposalOf`). Such a call has no approval to check, and its recorded
 * fields never change; only its state does, which the consume decides on the locked row. So
 * authorize of it without a token checks these fields instead of reading the call back (the
 * way a minted token's rows are used, see minted-calls.ts), its consume is its only ledger
 * step, and the call the consume returns is compared with these fields (`sameRecordedCall`).
 */
export function rememberRecordedCall(deps: GateDeps, proposal: Proposal): void {
  RECORDED.hold(deps, proposal.proposalId, proposal);
}

/** The call this gate just recorded as `proposalId`, at most once (a repeated authorize reads the ledger). */
export function takeRecordedCall(deps: GateDeps, proposalId: string): Proposal | undefined {
  return RECORDED.take(deps, proposalId);
}

/**
 * The call was proposed again (its write created nothing): it is read from the ledger from
 * now on, which may have opened an approval request for it since (policy changed).
 */
export function forgetRecordedCall(deps: GateDeps, proposalId: string): void {
  RECORDED.forget(deps, proposalId);
}
