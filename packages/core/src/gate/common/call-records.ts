import type { AuditEvent, AuditValue } from '../../audit/types.ts';
import type { CallIds } from '../../events/types.ts';
import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';

// Helpers every stage of the gate uses to describe a recorded call: kept below the stages
// so that none of them imports another stage for them.

/** The common fields of every audit event about one proposal. */
export function eventAbout(proposal: Proposal, type: AuditEvent['type'], at: number): AuditEvent {
  return {
    type,
    at,
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    callId: proposal.callId,
    proposalId: proposal.proposalId,
    toolName: proposal.toolName,
    argsDigest: proposal.argsDigest,
    actor: proposal.principal,
  };
}

/**
 * What the chain says about an approval request, in the proposal record that opened it
 * (format 2: flat members of its detail, `requestRuleId` beside the verdict's `ruleId`):
 * what `audit verify` holds every decision on it to (passkey/evidence-check.ts).
 */
export function addRequestDetail(detail: { [key: string]: AuditValue }, request: Pick<ApprovalRequest, 'expiresAt' | 'requiredApprovals' | 'ruleId' | 'passkey'>): void {
  detail.expiresAt = request.expiresAt;
  detail.requiredApprovals = request.requiredApprovals;
  detail.requestRuleId = request.ruleId ?? null;
  if (request.passkey === 'required') detail.passkey = 'required';
}

/** A request's own `approval_requested` record's detail (it opened later than its call, as in format 1). */
export function requestDetail(request: Pick<ApprovalRequest, 'expiresAt' | 'requiredApprovals' | 'ruleId' | 'passkey'>): { [key: string]: AuditValue } {
  return {
    expiresAt: request.expiresAt,
    requiredApprovals: request.requiredApprovals,
    ruleId: request.ruleId ?? null,
    ...(request.passkey === 'required' ? { passkey: 'required' } : {}),
  };
}

/** The ids every lifecycle event about one recorded call carries. */
export function callIds(proposal: Proposal): CallIds {
  return { runId: proposal.runId, proposalId: proposal.proposalId, callId: proposal.callId, toolName: proposal.toolName };
}

/** A thrown value as text, for audit details and typed failures (never rethrown). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
