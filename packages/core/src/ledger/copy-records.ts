import type { ApprovalRequest, Proposal } from './types.ts';

// Explicit copies of ledger records: the in-memory ledger must never hand out its
// own objects (a caller editing one would edit the ledger), and structuredClone was
// the largest cost on the dispatch hot path. Every nested object is copied too.

export function copyProposal(p: Proposal): Proposal {
  const copy = { ...p };
  if (p.result !== undefined) copy.result = { ...p.result };
  return copy;
}

export function copyRequest(r: ApprovalRequest): ApprovalRequest {
  return {
    ...r,
    eligible: {
      ...r.eligible,
      ...(r.eligible.approvers ? { approvers: [...r.eligible.approvers] } : {}),
      ...(r.eligible.roles ? { roles: [...r.eligible.roles] } : {}),
    },
    decisions: r.decisions.map((d) => ({ ...d })),
  };
}
