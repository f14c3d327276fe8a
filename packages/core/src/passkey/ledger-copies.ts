import type { AuditRecord } from '../audit/types.ts';
import type { Decision } from '../ledger/types.ts';
import { readPasskeyEvidence } from './assertion-shape.ts';
import type { PasskeyEvidence } from './types.ts';

/**
 * The ledger keeps its own copy of each passkey decision (the decision row's assertion),
 * and the gate counts approvals from it. `audit verify` checks the chain's copy; this
 * compares the two, for one request opened under a passkey rule: every ledger decision
 * must carry exactly the assertion of the chain's decision record by the same approver
 * (and that record must exist), so a decision or an assertion changed in, or added to,
 * the ledger alone is reported. Returns one reason per mismatch.
 */
export function ledgerCopyProblems(requestId: string, chainDecisions: readonly AuditRecord[], ledgerDecisions: readonly Decision[]): string[] {
  const problems: string[] = [];
  for (const decision of ledgerDecisions) {
    const recorded = chainDecisions.find((record) => record.actor === decision.approver);
    const chained = recorded === undefined ? undefined : readPasskeyEvidence(recorded.detail?.passkey);
    if (recorded === undefined) {
      problems.push(`passkey_ledger_mismatch: ${decision.approver}'s decision on ${requestId} is in the ledger but has no decision record in the chain`);
    } else if (recorded.detail?.decision !== decision.decision || (recorded.detail?.editedProposalId ?? undefined) !== decision.editedProposalId) {
      problems.push(`passkey_ledger_mismatch: ${decision.approver}'s decision on ${requestId} differs between the ledger and the chain`);
    } else if (chained === undefined || decision.passkey === undefined || !sameEvidence(chained, decision.passkey)) {
      problems.push(`passkey_ledger_mismatch: the ledger's copy of ${decision.approver}'s assertion on ${requestId} is not the one the chain recorded`);
    }
  }
  return problems;
}

const FIELDS = ['credentialId', 'authenticatorData', 'clientDataJSON', 'signature', 'userHandle', 'rpId', 'origin'] as const;

function sameEvidence(a: PasskeyEvidence, b: PasskeyEvidence): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}
