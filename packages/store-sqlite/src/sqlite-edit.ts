import type { EditInput, RecordEditResult } from '@countersign/core/ledger';
import { editedRequestStatus, editRefusal } from '@countersign/core/ledger';
import type { SqliteConnection } from './connection.ts';
import { insertDecision, insertProposal, insertRequest, proposalByCallRow, proposalRow, requestRow, runOwnerRow } from './sqlite-ledger-rows.ts';

/**
 * `LedgerStore.recordEdit` on SQLite, as ONE write job: it runs inside the batch's
 * BEGIN IMMEDIATE under its own SAVEPOINT (see SqliteConnection), so every read below
 * sees state no other writer can change before our writes, and a throw anywhere in the
 * writes rolls back all of them. Every refusal is decided before the first write.
 */
export function recordEditIn(conn: SqliteConnection, input: EditInput): RecordEditResult {
  const original = requestRow(conn, input.original.requestId);
  const originalProposal = original && proposalRow(conn, original.proposalId);
  if (original === undefined || originalProposal === undefined) return { ok: false, reason: 'not_found' };
  const refusal = editRefusal(original, originalProposal, runOwnerRow(conn, input.proposal.runId), input);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const { proposal, request } = input;
  const taken =
    proposalRow(conn, proposal.proposalId) !== undefined ||
    proposalByCallRow(conn, proposal.runId, proposal.callId) !== undefined ||
    requestRow(conn, request.requestId) !== undefined;
  if (taken) return { ok: false, reason: 'conflict' };

  insertDecision(conn, original.requestId, original.decisions.length + 1, input.original.decision, { status: 'edited' });
  insertProposal(conn, proposal);
  insertRequest(conn, request);
  if (input.editorApproval !== undefined) {
    const next = editedRequestStatus(input);
    insertDecision(
      conn,
      request.requestId,
      1,
      input.editorApproval.decision,
      next === 'approved' ? { status: next, tokenId: input.editorApproval.tokenIdIfApproved, at: input.now } : { status: next },
    );
  }
  return {
    ok: true,
    original: requestRow(conn, original.requestId)!,
    proposal: proposalRow(conn, proposal.proposalId)!,
    request: requestRow(conn, request.requestId)!,
  };
}
