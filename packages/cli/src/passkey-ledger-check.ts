import { type AuditRecord, openedRequestOf } from '@countersign/core/audit';
import type { LedgerStore } from '@countersign/core/ledger';
import { ledgerCopyProblems, type PasskeyEvidenceProblem } from '@countersign/core/passkey';

/**
 * `audit verify` on a store: the ledger's copy of every decision on a request the chain
 * opened under a passkey rule, compared with the chain's (core's `ledgerCopyProblems`).
 * The gate counts approvals from the ledger, so a copy changed there alone is a problem.
 * A request the ledger cannot read is one too, with its reason: never skipped.
 */
export async function passkeyLedgerProblems(ledger: Pick<LedgerStore, 'getApprovalRequest'>, records: readonly AuditRecord[]): Promise<PasskeyEvidenceProblem[]> {
  const problems: PasskeyEvidenceProblem[] = [];
  const decisions = Map.groupBy(
    records.filter((r) => r.type === 'decision' && r.requestId !== undefined),
    (r) => r.requestId as string,
  );
  for (const record of records) {
    const opened = openedRequestOf(record);
    if (opened === undefined || opened.detail.passkey !== 'required') continue;
    const requestId = opened.requestId;
    let request: Awaited<ReturnType<LedgerStore['getApprovalRequest']>>;
    try {
      request = await ledger.getApprovalRequest(requestId);
    } catch (error) {
      problems.push({ seq: opened.seq, reason: `passkey_ledger_unreadable: request ${requestId}: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    if (request === undefined) {
      problems.push({ seq: opened.seq, reason: `passkey_ledger_mismatch: request ${requestId} is in the chain but not in the ledger` });
      continue;
    }
    for (const reason of ledgerCopyProblems(requestId, decisions.get(requestId) ?? [], request.decisions)) problems.push({ seq: opened.seq, reason });
  }
  return problems;
}
