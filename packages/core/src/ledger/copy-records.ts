import type { ApprovalRequest, Proposal, ResultRecord } from './types.ts';

// Explicit copies of ledger records: the in-memory ledger must never hand out its
// own objects (a caller editing one would edit the ledger), and structuredClone was
// the largest cost on the dispatch hot path. Every nested object is copied too.

export function copyProposal(p: Proposal): Proposal {
  const copy = { ...p };
  if (p.result !== undefined) copy.result = copyResult(p.result);
  return copy;
}

/** A result record sharing nothing with `result` (its projections included): stores hand out their own copies. */
export function copyResult(result: ResultRecord): ResultRecord {
  const copy = { ...result };
  if (result.projections !== undefined) copy.projections = { ...result.projections };
  return copy;
}

export function copyRequest(r: ApprovalRequest): ApprovalRequest {
  // Assignments rather than conditional spreads: this runs on every dispatch's request read.
  const eligible = { ...r.eligible };
  if (r.eligible.approvers) eligible.approvers = [...r.eligible.approvers];
  if (r.eligible.roles) eligible.roles = [...r.eligible.roles];
  return { ...r, eligible, decisions: r.decisions.map((d) => (d.passkey === undefined ? { ...d } : { ...d, passkey: { ...d.passkey } })) };
}

// The in-memory ledger keeps sealed records: copied once when they come in, deep-frozen,
// and replaced (never edited) on every change. A reader can be handed the stored object
// itself: it cannot change under the ledger, and the ledger never changes it under the reader.

/** A frozen copy of `p` (nested result and its projections included). */
export function sealProposal(p: Proposal): Proposal {
  const copy = { ...p };
  if (p.result !== undefined) copy.result = sealResult(p.result);
  return Object.freeze(copy);
}

/** A frozen copy of a result record, its projections included. */
export function sealResult(result: ResultRecord): ResultRecord {
  const copy = copyResult(result);
  if (copy.projections !== undefined) Object.freeze(copy.projections);
  return Object.freeze(copy);
}

/** A frozen copy of `r` (rule, lists and decisions included). */
export function sealRequest(r: ApprovalRequest): ApprovalRequest {
  const copy = copyRequest(r);
  if (copy.eligible.approvers) Object.freeze(copy.eligible.approvers);
  if (copy.eligible.roles) Object.freeze(copy.eligible.roles);
  Object.freeze(copy.eligible);
  for (const d of copy.decisions) {
    if (d.passkey !== undefined) Object.freeze(d.passkey);
    Object.freeze(d);
  }
  Object.freeze(copy.decisions);
  return Object.freeze(copy);
}

/**
 * A sealed record with some top-level fields replaced: the nested parts it keeps are
 * already frozen and shared, so a shallow copy is enough. `changes` holds only scalars
 * or values sealed by the caller.
 */
export function resealed<T extends Proposal | ApprovalRequest>(sealed: T, changes: Partial<T>): T {
  return Object.freeze({ ...sealed, ...changes }) as unknown as T;
}
