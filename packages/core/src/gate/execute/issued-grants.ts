import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import type { Grant } from './grant.ts';
import { grantFrom, grantMismatch } from './grant-of.ts';

/** What `authorize` knew when it handed a grant out: the gate, the consumed call, and the grant as issued. */
interface Issued {
  deps: GateDeps;
  proposal: Proposal;
  /** A private copy of the grant's fields (the caller's object is theirs and may be edited). */
  issued: Grant;
}

// Keyed by the grant object itself: only `issueGrant` adds to it and nothing outside this
// module can read it, so an entry cannot be forged; a grant that crossed a process, a
// durable engine or JSON is another object, and is checked against the ledger as before.
const ISSUED = new WeakMap<Grant, Issued>();

/**
 * The grant `authorize` returns for the call it has just consumed (`proposal`, as the
 * consume left it, and the request it used), remembered by object identity so that
 * `complete` of this very object in this process can skip reading the call back: the
 * ledger's record is the one held here.
 */
export function issueGrant(deps: GateDeps, proposal: Proposal, used: ApprovalRequest | undefined): Grant {
  const grant = grantFrom(proposal, used);
  const issued = { ...grant };
  if (grant.approvers !== undefined) issued.approvers = [...grant.approvers];
  ISSUED.set(grant, { deps, proposal, issued });
  return grant;
}

/**
 * The consumed call `grant` was issued for by this gate (`deps`), at most once: the entry
 * is spent on the first look, so a retried `complete` reads the ledger (and is answered
 * `duplicate` or `result_conflict` there). Undefined for any grant this gate did not
 * issue, or whose fields were edited since: those take `complete`'s full checks, which
 * refuse an edited one as `grant_mismatch`.
 */
export function takeIssuedCall(deps: GateDeps, grant: Grant): Proposal | undefined {
  const found = ISSUED.get(grant);
  if (found === undefined || found.deps !== deps) return undefined;
  ISSUED.delete(grant);
  return grantMismatch(grant as unknown as Record<string, unknown>, found.issued) === undefined ? found.proposal : undefined;
}
