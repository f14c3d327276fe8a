import type { Decision, EditInput, RecordEditResult } from '@countersign/core/ledger';
import { editedRequestStatus, editRefusal, LedgerError } from '@countersign/core/ledger';
import { decisionParams, proposalFromRow, proposalParams, requestFromRow, requestParams, text } from '@countersign/core/store-kit';
import type { Query } from './database.ts';
import type { LedgerSql } from './ledger-sql.ts';

/**
 * `LedgerStore.recordEdit` on PostgreSQL, inside ONE transaction (the ledger's, with the
 * edit's audit records when it has them). It first locks the original request (FOR
 * UPDATE, the lock addDecision takes), so concurrent edits and decisions of that request
 * queue there and each sees what the one before it committed; it decides on a fresh
 * read after the lock (see `lockRequest`), and every refusal is decided before the
 * first write (a taken id is looked up, under the lock, not left to an insert to fail
 * half-way). Then it writes the closing deny (the original becomes `edited`), the edited
 * proposal, its request and the editor's approval. Any failure rolls all of it back.
 * Lock discipline: only the original request is locked (the new rows are invisible to
 * everyone else until commit), never its proposal, so this cannot deadlock with
 * consume's proposal-then-request order.
 */
export async function recordEditIn(query: Query, sql: LedgerSql, input: EditInput): Promise<RecordEditResult> {
  const locked = await query(sql.lockRequest, [input.original.requestId]);
  if (locked.rows[0] === undefined) return { ok: false, reason: 'not_found' };
  const original = requestFromRow((await query(sql.requestById, [input.original.requestId])).rows[0]!);
  const proposalRow = (await query(sql.proposalById, [original.proposalId])).rows[0];
  if (proposalRow === undefined) return { ok: false, reason: 'not_found' };
  const ownerRow = (await query(sql.runOwner, [input.proposal.runId])).rows[0];
  const owner = ownerRow === undefined ? undefined : text(ownerRow, 'agent');
  const refusal = editRefusal(original, proposalFromRow(proposalRow), owner, input);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const { request } = input;
  // Gate-made ids are never taken; a request id that is means the edit is not what it claims.
  if ((await query(sql.requestById, [request.requestId])).rows[0] !== undefined) return { ok: false, reason: 'conflict' };

  const inserted = await query(sql.insertProposal, [...proposalParams(input.proposal), null]); // null: recorded `proposed`
  if (inserted.rows[0] === undefined) return { ok: false, reason: 'conflict' };
  const opened = await query(sql.insertRequestIfNew, requestParams(request));
  // Taken after the look-up above only by a request committed in between: a store error, rolled back whole.
  if (opened.rows[0] === undefined) throw new LedgerError('duplicate_id', `approval request id ${request.requestId} was taken during the edit`);
  await insertDecision(query, sql, original.requestId, original.decisions.length + 1, input.original.decision);
  await query(sql.editRequest, [original.requestId]);
  if (input.editorApproval !== undefined) {
    await insertDecision(query, sql, request.requestId, 1, input.editorApproval.decision);
    if (editedRequestStatus(input) === 'approved') {
      await query(sql.approveRequest, [request.requestId, input.editorApproval.tokenIdIfApproved, input.now]);
    }
  }
  const closed = await query(sql.requestById, [original.requestId]);
  const edited = await query(sql.requestById, [request.requestId]);
  return { ok: true, original: requestFromRow(closed.rows[0]!), proposal: proposalFromRow(inserted.rows[0]), request: requestFromRow(edited.rows[0]!) };
}

async function insertDecision(query: Query, sql: LedgerSql, requestId: string, position: number, decision: Decision): Promise<void> {
  await query(sql.insertDecision, decisionParams(requestId, position, decision));
}
