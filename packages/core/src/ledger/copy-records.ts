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
  return { ...r, eligible, decisions: r.decisions.map((d) => ({ ...d })) };
}
