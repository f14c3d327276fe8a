import { effectiveStatus } from './effective-status.ts';
import type { AddDecisionResult, ApprovalRequest, Decision, StatusAfterDecision } from './types.ts';

// The approval state machine, in one place for every LedgerStore backend: each store
// runs these inside its own atomic step (event-loop turn, transaction, row lock).
// Postgres also states `decisionRefusal` and `statusAfterDecision` in SQL (store-postgres
// decide-sql.ts), so a decision is decided under its lock in the round trip of its COMMIT;
// it explains a refusal with `decisionRefusal`, and the ledger and AuditByStatus
// conformance suites hold both statements of the rules to the same answers.

/** Why `decision` cannot be added to `request` at `now`, or undefined when it can. */
export function decisionRefusal(
  request: ApprovalRequest,
  decision: Decision,
  now: number,
): Extract<AddDecisionResult, { ok: false }>['reason'] | undefined {
  // The decision may come from untyped code (JSON, another language): anything but the
  // two values is refused here, in every store, rather than counted as an approval.
  if (decision.decision !== 'approve' && decision.decision !== 'deny') return 'invalid_decision';
  const status = effectiveStatus(request, now);
  if (status === 'expired') return 'expired';
  if (status !== 'pending') return 'already_decided';
  if (request.decisions.some((d) => d.approver === decision.approver)) return 'duplicate_approver';
  return undefined;
}

/**
 * The status after adding an accepted `decision`: one deny ends the request; it is
 * approved once distinct approvals reach `requiredApprovals` (n of m).
 */
export function statusAfterDecision(request: ApprovalRequest, decision: Decision): StatusAfterDecision {
  if (decision.decision === 'deny') return 'denied';
  const approvals = request.decisions.filter((d) => d.decision === 'approve').length + 1;
  return approvals >= request.requiredApprovals ? 'approved' : 'pending';
}

/** Every status `statusAfterDecision` can give for `decision`, whatever the request holds. */
export function statusesAfter(decision: Pick<Decision, 'decision'>): readonly StatusAfterDecision[] {
  return decision.decision === 'deny' ? ['denied'] : ['pending', 'approved'];
}
