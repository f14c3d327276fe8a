import { AUDIT_RECORD_FORMAT } from '../../audit/record-format.ts';
import type { AuditEvent, AuditLog } from '../../audit/types.ts';
import { statusesAfter } from '../../ledger/decision-rules.ts';
import type { ApprovalRequest, ApprovalStatus, Proposal, StatusAfterDecision } from '../../ledger/types.ts';
import { evidenceJson } from '../../passkey/assertion-shape.ts';
import type { PasskeyEvidence } from '../../passkey/types.ts';
import { signDecisionRecord } from '../../token/decision-record.ts';
import type { Keyring } from '../../token/keyring.ts';
import { callClaimsOf } from '../../ledger/expected-call.ts';
import { eventAbout } from '../common/call-records.ts';

type RecordedDecision = {
  approver: string;
  decision: 'approve' | 'deny';
  reason: string | undefined;
  at: number;
  editedProposalId?: string | undefined;
  passkey?: PasskeyEvidence | undefined;
};

/** What a decision record says of the request after the decision: its status and, when approved, the token it minted. */
type Outcome = { requestId: string; status: ApprovalStatus; tokenId?: string | undefined; expiresAt: number };

/**
 * The audit record of one recorded decision: the decision, its signed decision record bound
 * to the call the approver was shown and, when it approved the request, the token it minted.
 */
export function decisionEvent(
  keyring: Keyring,
  proposal: Proposal,
  request: ApprovalRequest,
  decision: RecordedDecision,
  /** Approve-with-edits: the edited arguments' digest, part of what a passkey signed. */
  editedArgsDigest?: string | undefined,
): AuditEvent {
  return eventOf(signedRecord(keyring, proposal, request.requestId, decision), proposal, request, decision, editedArgsDigest);
}

/**
 * `decisionEvent` for each status `decision` can leave `request` (as read, still pending)
 * in, built before the decision is written (`AuditByStatus`): the decision record signed
 * once, the lists differing only in the status and the token an approval mints.
 */
export function decisionEventsByStatus(
  keyring: Keyring,
  proposal: Proposal,
  request: ApprovalRequest,
  decision: RecordedDecision,
  tokenIdIfApproved: string,
): Partial<Record<StatusAfterDecision, AuditEvent[]>> {
  const record = signedRecord(keyring, proposal, request.requestId, decision);
  const { requestId, expiresAt } = request;
  return Object.fromEntries(
    statusesAfter(decision).map((status) => [
      status,
      [eventOf(record, proposal, { requestId, status, expiresAt, tokenId: status === 'approved' ? tokenIdIfApproved : undefined }, decision, undefined)],
    ]),
  );
}

function signedRecord(keyring: Keyring, proposal: Proposal, requestId: string, decision: RecordedDecision): string {
  return signDecisionRecord(
    {
      ...callClaimsOf(proposal),
      req: requestId,
      prop: proposal.proposalId,
      apr: decision.approver,
      dec: decision.decision,
      rsn: decision.reason ?? null,
      edit: decision.editedProposalId ?? null,
      at: decision.at,
    },
    keyring,
  );
}

function eventOf(record: string, proposal: Proposal, request: Outcome, decision: RecordedDecision, editedArgsDigest: string | undefined): AuditEvent {
  const { approver, reason, at, editedProposalId, passkey } = decision;
  // Approved is the one status that mints a token: its facts go in the decision record (format 2).
  const token = request.status === 'approved' && request.tokenId !== undefined ? { tokenId: request.tokenId, tokenExpiresAt: request.expiresAt } : undefined;
  return {
    ...eventAbout(proposal, 'decision', at),
    requestId: request.requestId,
    actor: approver,
    reason,
    detail: {
      format: AUDIT_RECORD_FORMAT,
      decision: decision.decision,
      status: request.status,
      record,
      ...(editedProposalId ? { editedProposalId } : {}),
      // The approver's own signature over this decision, re-verified offline by `audit verify`.
      ...(passkey === undefined ? {} : { passkey: evidenceJson(passkey) }),
      ...(editedArgsDigest === undefined ? {} : { editedArgsDigest }),
      ...token,
    },
  };
}

/**
 * Appends the audit events of decisions that have ALREADY taken effect in the ledger,
 * for a ledger and an audit log that are separate stores (with a store that holds both,
 * the decision passes its events to `addDecision` and they commit together instead).
 * What must never happen is reporting "failed" for a decision that took effect. So an
 * audit failure here is not thrown: it is returned as `false` (the caller reports
 * `auditRecorded: false`). Appending stops at the first failure, so the chain never
 * holds a later event of the step without the earlier one.
 */
export async function appendAfterEffect(audit: AuditLog, events: readonly AuditEvent[]): Promise<boolean> {
  for (const event of events) {
    try {
      await audit.append(event);
    } catch {
      return false;
    }
  }
  return true;
}
