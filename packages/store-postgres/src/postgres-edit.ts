import type { Decision, EditInput, EditRefusal, RecordEditResult } from '@countersign/core/ledger';
import { editedRequestStatus, editRefusal } from '@countersign/core/ledger';
import { proposalFromRow, proposalParams, requestFromRow, requestParams, text } from '@countersign/core/store-kit';
import type { PgDatabase, Query } from './database.ts';
import type { LedgerSql } from './ledger-sql.ts';

/** Thrown inside the transaction to roll back what it wrote so far; answered as a refusal. */
class EditRolledBack extends Error {
  readonly reason: EditRefusal;
  constructor(reason: EditRefusal) {
    super(`edit rolled back: ${reason}`);
    this.reason = reason;
  }
}

/**
 * `LedgerStore.recordEdit` on PostgreSQL: ONE transaction. It first locks the original
 * request (FOR UPDATE, the lock addDecision takes), so concurrent edits and decisions
 * of that request queue there and each sees what the one before it committed; it
 * decides on a fresh read after the lock (see `lockRequest`), then writes the closing
 * deny, the edited proposal, its request and the editor's approval. Any failure rolls
 * all of it back. Lock discipline: only the original request is locked (the new rows
 * are invisible to everyone else until commit), never its proposal, so this cannot
 * deadlock with consume's proposal-then-request order.
 */
export async function recordEditIn(db: PgDatabase, sql: LedgerSql, input: EditInput): Promise<RecordEditResult> {
  try {
    return await db.transaction(async (query): Promise<RecordEditResult> => {
      const locked = await query(sql.lockRequest, [input.original.requestId]);
      if (locked.rows[0] === undefined) return { ok: false, reason: 'not_found' };
      const original = requestFromRow((await query(sql.requestById, [input.original.requestId])).rows[0]!);
      const proposalRow = (await query(sql.proposalById, [original.proposalId])).rows[0];
      if (proposalRow === undefined) return { ok: false, reason: 'not_found' };
      const ownerRow = (await query(sql.runOwner, [input.proposal.runId])).rows[0];
      const owner = ownerRow === undefined ? undefined : text(ownerRow, 'agent');
      const refusal = editRefusal(original, proposalFromRow(proposalRow), owner, input);
      if (refusal !== undefined) return { ok: false, reason: refusal };

      const inserted = await query(sql.insertProposal, proposalParams(input.proposal));
      if (inserted.rows[0] === undefined) return { ok: false, reason: 'conflict' };
      const { request } = input;
      const opened = await query(sql.insertRequestIfNew, requestParams(request));
      // The proposal above is already written: undo it with the rest.
      if (opened.rows[0] === undefined) throw new EditRolledBack('conflict');
      await insertDecision(query, sql, original.requestId, original.decisions.length + 1, input.original.decision);
      await query(sql.denyRequest, [original.requestId]);
      if (input.editorApproval !== undefined) {
        await insertDecision(query, sql, request.requestId, 1, input.editorApproval.decision);
        if (editedRequestStatus(input) === 'approved') {
          await query(sql.approveRequest, [request.requestId, input.editorApproval.tokenIdIfApproved, input.now]);
        }
      }
      const closed = await query(sql.requestById, [original.requestId]);
      const edited = await query(sql.requestById, [request.requestId]);
      return { ok: true, original: requestFromRow(closed.rows[0]!), proposal: proposalFromRow(inserted.rows[0]), request: requestFromRow(edited.rows[0]!) };
    });
  } catch (error) {
    if (error instanceof EditRolledBack) return { ok: false, reason: error.reason };
    throw error;
  }
}

async function insertDecision(query: Query, sql: LedgerSql, requestId: string, position: number, decision: Decision): Promise<void> {
  await query(sql.insertDecision, [requestId, position, decision.approver, decision.decision, decision.reason ?? null, decision.at, decision.editedProposalId ?? null]);
}
