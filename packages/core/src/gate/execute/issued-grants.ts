import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { HELD_LIMITS, HeldRows } from '../common/held-rows.ts';
import type { Grant } from './grant.ts';
import { grantFrom, grantMismatch } from './grant-of.ts';

/** What `authorize` knew when it handed a grant out: the consumed call, and the grant as issued. */
interface Issued {
  proposal: Proposal;
  /** A private copy of the grant's fields (the caller's object is theirs and may be edited). */
  issued: Grant;
}

// Keyed by the gate and the call: only `issueGrant` adds to it and nothing outside this
// module can read it. A grant presented to another gate, process or replica finds nothing
// there and is checked against the ledger as before (as is one forgotten past the limits).
// The grant's copy shares the call's argument text, so the call's weight is the entry's.
const ISSUED = new HeldRows<Issued>(HELD_LIMITS, (held) => held.proposal.canonicalArgs.length);

/**
 * The grant `authorize` returns for the call it has just consumed (`proposal`, as the
 * consume left it, and the request it used), remembered by the call it names, so that
 * `complete` of this grant by this gate, unedited (the object itself, or its copy that
 * crossed JSON, as an HTTP agent sends it back), can skip reading the call back: the
 * ledger's record is the one held here.
 */
export function issueGrant(deps: GateDeps, proposal: Proposal, used: ApprovalRequest | undefined): Grant {
  const grant = grantFrom(proposal, used);
  const issued = { ...grant };
  if (grant.approvers !== undefined) issued.approvers = [...grant.approvers];
  ISSUED.hold(deps, proposal.proposalId, { proposal, issued });
  return grant;
}

/**
 * The consumed call this gate (`deps`) issued `grant` for, at most once: the entry is spent
 * on the first look, so a retried `complete` reads the ledger (and is answered `duplicate`
 * or `result_conflict` there). Undefined for any grant this gate did not issue, or whose
 * fields differ in any way from the grant as issued (`grantMismatch`: exact values, no
 * conversion): those take `complete`'s full checks, which refuse an edited one as
 * `grant_mismatch`. The caller still checks that the call is the presenting agent's.
 */
export function takeIssuedCall(deps: GateDeps, grant: Grant): Proposal | undefined {
  const found = ISSUED.take(deps, grant.proposalId);
  if (found === undefined) return undefined;
  return grantMismatch(grant as unknown as Record<string, unknown>, found.issued) === undefined ? found.proposal : undefined;
}
