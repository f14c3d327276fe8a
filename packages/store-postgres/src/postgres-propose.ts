import type { ApprovalRequest, Proposal, ProposalInput, RecordProposalOptions } from '@countersign/core/ledger';
import { LedgerError } from '@countersign/core/ledger';
import { proposalFromRow, proposalParams, requestFromRow, requestParams, type Row } from '@countersign/core/store-kit';
import type { Query } from './database.ts';
import { sqlState } from './errors.ts';
import type { ProposeSql } from './propose-sql.ts';

/**
 * What the flagged proposal statements answered. Only `created` set the flag (its records
 * are appended); the others wrote nothing and are explained after COMMIT:
 * `not_inserted`, the call (run, call id) or the proposal id was there already;
 * `other_owner`, the run is another agent's; `claim_raced`, a concurrent first call of
 * the run committed after this statement's snapshot (its owner is read again).
 */
export type ProposalSent =
  | { kind: 'created'; proposal: Proposal; request: ApprovalRequest | undefined }
  | { kind: 'not_inserted' }
  | { kind: 'other_owner' }
  | { kind: 'claim_raced' };

/** Whether the statements recorded the call (and so set the flag its records are appended under). */
export function proposalSentWritten(sent: ProposalSent): boolean {
  return sent.kind === 'created';
}

/**
 * Sends the statements that record `input` (and open `request`), each recording one
 * setting `flag` when it inserts; every statement is sent before this returns (a planned
 * write: COMMIT follows at once). `owned`: the run is known to be `input.agent`'s
 * (RunOwners), so no claim. A run to claim with a request to open: the claim's insert,
 * then the request's, which inserts only under the flag. Nothing here reads the call
 * that was already there: a statement after COMMIT was sent could not be in the
 * transaction (the caller reads it afterwards; a call's row never changes).
 */
export function sendProposal(
  query: Query,
  sql: ProposeSql,
  input: ProposalInput,
  request: RecordProposalOptions['request'],
  consumedAt: number | null,
  owned: boolean,
  flag: string,
): Promise<ProposalSent> {
  const params = proposalParams(input);
  if (owned && request !== undefined) {
    // The request's parameters without its proposal id, which the statement takes from the inserted proposal.
    const [requestId, , ...rest] = requestParams({ ...request, proposalId: input.proposalId });
    return query(sql.insertOwnedWithRequestFlagged, [...params, requestId, ...rest, flag]).then(({ rows }) => createdWithRequest(rows[0]), requestInsertError);
  }
  if (owned) return query(sql.insertOwnedFlagged, [...params, consumedAt, flag]).then(({ rows }) => created(rows[0], undefined));
  const claimed = query(sql.claimAndInsertFlagged, [...params, consumedAt, flag]);
  const opened = request === undefined ? undefined : query(sql.insertRequestIfWritten, [...requestParams({ ...request, proposalId: input.proposalId }), flag]);
  // Settled either way: a failed claim fails the request's insert behind it (aborted transaction), and the claim's error is the answer.
  opened?.catch(() => {});
  return claimed.then(async ({ rows }) => {
    const row = rows[0];
    if (row === undefined) throw new LedgerError('corrupt_record', 'proposal statement returned no row');
    const answer = opened === undefined ? undefined : await opened.catch(requestInsertError);
    if (row.run_owner === null) return { kind: 'claim_raced' };
    if (row.run_owner !== input.agent) return { kind: 'other_owner' };
    if (row.proposal_id === null) return { kind: 'not_inserted' };
    return created(row, answer?.rows[0] === undefined ? undefined : requestFromRow(answer.rows[0]));
  });
}

function created(row: Row | undefined, request: ApprovalRequest | undefined): ProposalSent {
  return row === undefined ? { kind: 'not_inserted' } : { kind: 'created', proposal: proposalFromRow(row), request };
}

function createdWithRequest(row: Row | undefined): ProposalSent {
  if (row === undefined) return { kind: 'not_inserted' };
  const opened = row.request_json;
  if (opened === null || typeof opened !== 'object' || Array.isArray(opened)) throw new LedgerError('corrupt_record', 'proposal insert returned no request');
  return { kind: 'created', proposal: proposalFromRow(row), request: requestFromRow(opened as Row) };
}

/** A refused request insert as the ledger reports it: a missing proposal, or a taken id. */
export function requestInsertError(error: unknown): never {
  const state = sqlState(error);
  if (state === '23503') throw new LedgerError('not_found', 'no such proposal for the approval request', { cause: error });
  if (state === '23505') throw new LedgerError('duplicate_id', 'the proposal already has an approval request, or the request id is taken', { cause: error });
  throw error;
}
