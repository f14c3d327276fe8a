import type { AddDecisionResult, Decision } from '@countersign/core/ledger';
import { decisionRefusal, LedgerError } from '@countersign/core/ledger';
import { decisionParams, requestFromRow } from '@countersign/core/store-kit';
import type { QueryResult } from 'pg';
import type { Query } from './database.ts';
import type { LedgerSql } from './ledger-sql.ts';

/**
 * `LedgerStore.addDecision` on PostgreSQL, inside the caller's transaction: the request's
 * row lock, the decision decided and written in SQL on what that lock protects (`decide`
 * in decide-sql.ts) and the read-back, all sent at once (nothing here waits for an answer
 * before the next statement, so the caller may send its audit insert and COMMIT behind
 * them: one round trip). `flag`: the prefix of the setting `decide` sets for the status
 * it wrote (see AuditedBatch.submitPlannedByOutcome); undefined when no records wait on it.
 *
 * Concurrent decisions on one request queue on the lock and each decides on what the one
 * before committed, so none is lost or counted twice and none needs a retry. Lock
 * discipline as everywhere: only the request is locked, never its proposal.
 */
export function decideIn(
  query: Query,
  sql: LedgerSql,
  requestId: string,
  decision: Decision,
  opts: { now: number; tokenIdIfApproved: string },
  flag?: string,
): Promise<AddDecisionResult> {
  const [, , ...fields] = decisionParams(requestId, 0, decision);
  const locked = query(sql.lockRequest, [requestId]);
  const decided = query(sql.decide, [requestId, ...fields, opts.now, opts.tokenIdIfApproved, flag ?? null]);
  const readBack = query(sql.requestById, [requestId]);
  return answer(Promise.all([locked, decided, readBack]), decision, opts.now);
}

async function answer(sent: Promise<[QueryResult, QueryResult, QueryResult]>, decision: Decision, now: number): Promise<AddDecisionResult> {
  const [locked, decided, readBack] = await sent;
  if (locked.rows[0] === undefined || readBack.rows[0] === undefined) return { ok: false, reason: 'not_found' };
  // As it stands under our lock, with our decision if it went in.
  const request = requestFromRow(readBack.rows[0]);
  if (decided.rows[0] !== undefined) return { ok: true, request };
  // Refused, nothing written: why, from the same locked state.
  const refusal = decisionRefusal(request, decision, now);
  if (refusal === undefined) throw new LedgerError('corrupt_record', `decision on ${request.requestId} changed nothing although the locked request allowed it`);
  return { ok: false, reason: refusal };
}
