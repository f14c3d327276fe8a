import type { AddDecisionResult, ApprovalRequest, AuditFor, ConsumeInput, ConsumeResult, Decision, EditInput, LedgerStore, ListRequestsFilter, NewApprovalRequest, Proposal, ProposalInput, ProposalWithRequest, RecordEditResult, RecordProposalOptions, RecordProposalResult, RecordProviderOutputOutcome, RecordResultOutcome, ProviderOutputRecord, ResultRecord, WithdrawApprovalResult, WriteAudit, RequestWithProposal, DecisionAudit } from '@countersign/core/ledger';
import { approvalConsumeFailure, auditForOutcome, checkProviderOutput, consumedOnRecord, consumeWritten, copyResult, decisionRefusal, LedgerError, providerOutputChange, recordResultOnce, resultWritten, sameCall, statusAfterDecision, withdrawalRefusal, proposalWritten, decisionAuditFor } from '@countersign/core/ledger';
import { projectionsColumn, requestFromRow } from '@countersign/core/store-kit';
import { auditedWrite } from './audited-write.ts';
import type { SqliteAuditLog } from './sqlite-audit-log.ts';
import type { SqliteConnection } from './connection.ts';
import { recordEditIn } from './sqlite-edit.ts';
import { consumeUnapprovedRow, eligibilityFilter, insertDecision, insertProposalOnce, insertRequest, openCallRow, proposalByCallRow, proposalRow, proposalWithRequestRow, requestOfProposalRow, requestWithProposalRow, requestRow, runOwnerRow, SELECT_REQUEST, statusFilter } from './sqlite-ledger-rows.ts';

/**
 * LedgerStore on SQLite. Every write runs inside a BEGIN IMMEDIATE transaction
 * (group-committed with the writes submitted alongside it, see SqliteConnection.write),
 * so a method that reads then writes decides on state no other process or batch item
 * can change under it; the conditional UPDATEs (`WHERE state = 'proposed'`,
 * `status = 'approved'`) are a second guard. Reads run at once, outside any batch.
 *
 * Given `auditLog` (the store's log on the same connection), a write passed audit
 * events appends them inside its own batch item: the ledger change and its records
 * share one SAVEPOINT and one COMMIT, so they land together or not at all.
 */
export class SqliteLedger implements LedgerStore {
  readonly #conn: SqliteConnection;
  readonly auditLog: SqliteAuditLog | undefined;

  constructor(conn: SqliteConnection, auditLog?: SqliteAuditLog) {
    this.#conn = conn;
    this.auditLog = auditLog;
  }

  /** `run` as one write, with the records `audit` builds from its outcome appended in the same transaction. */
  #write<R>(run: () => R, audit: AuditFor<R> | undefined): Promise<R> {
    return auditedWrite(this.#conn, this.auditLog, 'SqliteLedger', run, audit);
  }

  async recordProposal(input: ProposalInput, options: RecordProposalOptions = {}): Promise<RecordProposalResult> {
    const consumedAt = consumedOnRecord(options);
    return this.#write((): RecordProposalResult => {
      // Inside the write transaction: the owner read here cannot change before the insert below.
      const owner = this.#runOwner(input.runId);
      if (owner !== undefined && owner !== input.agent) return { ok: false, reason: 'run_owned_by_other_agent' };
      const existing = this.#proposalByCall(input.runId, input.callId);
      if (existing !== undefined) {
        if (sameCall(existing, input)) return { ok: true, proposal: existing, created: false };
        return { ok: false, reason: 'conflict', existing };
      }
      if (owner === undefined) {
        this.#conn.statement('INSERT INTO runs (run_id, agent, created_at) VALUES (?, ?, ?)').run(input.runId, input.agent, input.createdAt);
      }
      // No SELECT for a taken id first: the primary key refuses it, and the error rolls
      // this write back (the run row above included). (run_id, call_id) cannot clash here:
      // it was looked up above under the same write lock.
      // Consumed in the same INSERT when asked: the call is never readable as `proposed`.
      const proposal = insertProposalOnce(this.#conn, input, consumedAt);
      const request = options.request === undefined ? undefined : this.#insertRequest({ ...options.request, proposalId: input.proposalId });
      return { ok: true, proposal, created: true, request };
    }, auditForOutcome(options.audit, proposalWritten));
  }

  async ping(): Promise<void> {
    this.#conn.ping();
  }

  async getRunOwner(runId: string): Promise<string | undefined> {
    return this.#conn.read(() => this.#runOwner(runId));
  }

  async getProposal(proposalId: string): Promise<Proposal | undefined> {
    return this.#conn.read(() => this.#proposal(proposalId));
  }

  async getProposalWithRequest(proposalId: string): Promise<ProposalWithRequest | undefined> {
    // One read transaction: the call and its request are read from the same snapshot.
    return this.#conn.readSnapshot(() => proposalWithRequestRow(this.#conn, proposalId));
  }

  async getRequestWithProposal(requestId: string): Promise<RequestWithProposal | undefined> {
    // One read transaction: the request and its call from the same snapshot.
    return this.#conn.readSnapshot(() => requestWithProposalRow(this.#conn, requestId));
  }

  async findProposalByCall(runId: string, callId: string): Promise<Proposal | undefined> {
    return this.#conn.read(() => this.#proposalByCall(runId, callId));
  }

  async recordCallRefusal(proposalId: string, textDigest: string, at: number): Promise<void> {
    await this.#conn.write(() => {
      this.#conn.statement('INSERT OR IGNORE INTO call_refusals (proposal_id, text_digest, recorded_at) VALUES (?, ?, ?)').run(proposalId, textDigest, at);
    });
  }

  async hasCallRefusal(proposalId: string, textDigest: string): Promise<boolean> {
    return this.#conn.read(() => this.#conn.statement('SELECT 1 AS found FROM call_refusals WHERE proposal_id = ? AND text_digest = ?').get(proposalId, textDigest) !== undefined);
  }

  async findOpenCall(runId: string, toolName: string, argsDigest: string): Promise<Proposal | undefined> {
    return this.#conn.read(() => openCallRow(this.#conn, runId, toolName, argsDigest));
  }

  async createApprovalRequest(input: NewApprovalRequest): Promise<ApprovalRequest> {
    return this.#conn.write(() => this.#insertRequest(input));
  }

  #insertRequest(input: NewApprovalRequest): ApprovalRequest {
    if (this.#proposal(input.proposalId) === undefined) {
      throw new LedgerError('not_found', `no proposal ${input.proposalId}`);
    }
    const clash = this.#conn
      .statement('SELECT 1 FROM approval_requests WHERE proposal_id = ? OR request_id = ?')
      .get(input.proposalId, input.requestId);
    if (clash !== undefined) {
      throw new LedgerError('duplicate_id', `proposal ${input.proposalId} already has an approval request`);
    }
    return insertRequest(this.#conn, input);
  }

  async getApprovalRequest(requestId: string): Promise<ApprovalRequest | undefined> {
    return this.#conn.read(() => this.#request(requestId));
  }

  async findApprovalRequestByProposal(proposalId: string): Promise<ApprovalRequest | undefined> {
    return this.#conn.read(() => requestOfProposalRow(this.#conn, proposalId));
  }

  async listApprovalRequests(filter: ListRequestsFilter, now: number): Promise<ApprovalRequest[]> {
    return this.#conn.read(() => {
      const where = statusFilter(filter.status, now);
      const eligible = eligibilityFilter(filter.eligibleFor);
      const rows = this.#conn
        .statement(
          `${SELECT_REQUEST} JOIN proposals p ON p.proposal_id = r.proposal_id
           WHERE ${where.sql} AND ${eligible.sql} ORDER BY r.created_at DESC, r.request_id DESC LIMIT ?`,
        )
        .all(...where.params, ...eligible.params, filter.limit ?? 100);
      return rows.map(requestFromRow);
    });
  }

  async addDecision(
    requestId: string,
    decision: Decision,
    opts: { now: number; tokenIdIfApproved: string; audit?: DecisionAudit | undefined },
  ): Promise<AddDecisionResult> {
    const audit = decisionAuditFor(opts.audit, decision);
    return this.#write((): AddDecisionResult => {
      const request = this.#request(requestId);
      if (request === undefined) return { ok: false, reason: 'not_found' };
      const refusal = decisionRefusal(request, decision, opts.now);
      if (refusal !== undefined) return { ok: false, reason: refusal };
      const next = statusAfterDecision(request, decision);
      insertDecision(
        this.#conn,
        requestId,
        request.decisions.length + 1,
        decision,
        next === 'approved' ? { status: next, tokenId: opts.tokenIdIfApproved, at: opts.now } : { status: next },
      );
      return { ok: true, request: this.#request(requestId)! };
    }, audit);
  }

  async recordEdit(input: EditInput, audit?: AuditFor<RecordEditResult>): Promise<RecordEditResult> {
    return this.#write(() => recordEditIn(this.#conn, input), audit);
  }

  async withdrawApproval(requestId: string, approver: string, now: number, audit?: AuditFor<WithdrawApprovalResult>): Promise<WithdrawApprovalResult> {
    // Read, check and delete under the write lock (BEGIN IMMEDIATE), as addDecision does:
    // a concurrent approval either completed the request first (refused here) or comes after.
    return this.#write((): WithdrawApprovalResult => {
      const request = this.#request(requestId);
      if (request === undefined) return { ok: false, reason: 'not_found' };
      const refusal = withdrawalRefusal(request, approver, now);
      if (refusal !== undefined) return { ok: false, reason: refusal };
      const removed = this.#conn
        .statement('DELETE FROM decisions WHERE request_id = ? AND approver = ? RETURNING position')
        .get(requestId, approver) as { position: number } | undefined;
      if (removed === undefined) throw new LedgerError('corrupt_record', 'decision changed inside its transaction');
      // Positions stay 1..n with no gap, so the next decision's `length + 1` is free.
      this.#conn.statement('UPDATE decisions SET position = position - 1 WHERE request_id = ? AND position > ?').run(requestId, removed.position);
      return { ok: true, request: this.#request(requestId)! };
    }, audit);
  }

  async revokeApproval(requestId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    // One conditional UPDATE: it revokes only what is still pending/approved and unexpired.
    return this.#write(() => {
      const { changes } = this.#conn
        .statement(
          `UPDATE approval_requests SET status = 'revoked'
           WHERE request_id = ? AND status IN ('pending', 'approved') AND expires_at > ?`,
        )
        .run(requestId, now);
      return Number(changes) === 1;
    }, audit);
  }

  async consume(input: ConsumeInput, audit?: WriteAudit<ConsumeResult>): Promise<ConsumeResult> {
    return this.#write((): ConsumeResult => {
      if (input.approval === undefined) {
        // Nothing to check but the proposal's own state: the conditional UPDATE is the
        // check, and RETURNING gives the consumed row (one statement, not a read then a write).
        const consumed = consumeUnapprovedRow(this.#conn, input.proposalId, input.now);
        if (consumed !== undefined) return { ok: true, proposal: consumed };
        const proposal = this.#proposal(input.proposalId);
        if (proposal === undefined) return { ok: false, reason: 'not_found' };
        if (proposal.state !== 'proposed') return { ok: false, reason: 'already_consumed' };
        // Unreachable while BEGIN IMMEDIATE holds the write lock: the UPDATE would have matched.
        throw new LedgerError('corrupt_record', 'proposal changed inside its transaction');
      }
      const proposal = this.#proposal(input.proposalId);
      if (proposal === undefined) return { ok: false, reason: 'not_found' };
      if (proposal.state !== 'proposed') return { ok: false, reason: 'already_consumed' };
      if (input.approval !== undefined) {
        const request = this.#request(input.approval.requestId);
        if (request === undefined || request.proposalId !== proposal.proposalId) return { ok: false, reason: 'not_found' };
        const failure = approvalConsumeFailure(request, input.approval.tokenId, input.now);
        if (failure !== undefined) return { ok: false, reason: failure };
        const { changes } = this.#conn
          .statement(
            `UPDATE approval_requests SET status = 'consumed', consumed_at = ?
             WHERE request_id = ? AND status = 'approved' AND token_id = ? AND expires_at > ?`,
          )
          .run(input.now, request.requestId, input.approval.tokenId, input.now);
        if (Number(changes) !== 1) throw new LedgerError('corrupt_record', 'approval changed inside its transaction');
      }
      const { changes } = this.#conn
        .statement("UPDATE proposals SET state = 'dispatched', dispatched_at = ? WHERE proposal_id = ? AND state = 'proposed'")
        .run(input.now, proposal.proposalId);
      // Unreachable while BEGIN IMMEDIATE holds the write lock; throwing rolls back the request update.
      if (Number(changes) !== 1) throw new LedgerError('corrupt_record', 'proposal changed inside its transaction');
      // The UPDATE above changed exactly these two columns of the row read at the top
      // (under the write lock), so the consumed proposal needs no second read.
      return { ok: true, proposal: { ...proposal, state: 'dispatched', dispatchedAt: input.now } };
    }, auditForOutcome(audit, consumeWritten));
  }

  async recordResult(proposalId: string, result: ResultRecord, audit?: WriteAudit<RecordResultOutcome>): Promise<RecordResultOutcome> {
    return this.#write((): RecordResultOutcome => {
      // Write-once: only a dispatched call without a result takes one.
      const { changes } = this.#conn
        .statement(
          `UPDATE proposals SET result_status = ?, result_digest = ?, result_at = ?, result_projections = ?
           WHERE proposal_id = ? AND state = 'dispatched' AND result_status IS NULL`,
        )
        .run(result.status, result.resultDigest, result.at, projectionsColumn(result), proposalId);
      if (Number(changes) === 1) return { ok: true, created: true, result: copyResult(result) };
      const proposal = this.#proposal(proposalId);
      if (proposal === undefined) return { ok: false, reason: 'not_found' };
      const answer = recordResultOnce(proposal, result);
      // Unreachable while BEGIN IMMEDIATE holds the write lock: the UPDATE would have matched.
      if (answer === undefined) throw new LedgerError('corrupt_record', 'result slot changed inside its transaction');
      return answer;
    }, auditForOutcome(audit, resultWritten));
  }

  async recordProviderOutput(proposalId: string, output: ProviderOutputRecord, audit?: AuditFor<RecordProviderOutputOutcome>): Promise<RecordProviderOutputOutcome> {
    checkProviderOutput(output);
    return this.#write((): RecordProviderOutputOutcome => {
      // Read under BEGIN IMMEDIATE's write lock: the call cannot change before the UPDATE.
      const outcome = providerOutputChange(this.#proposal(proposalId), output);
      if (!outcome.ok || !outcome.created) return outcome;
      const { changes } = this.#conn
        .statement(
          `UPDATE proposals SET state = 'dispatched', dispatched_at = ?, result_status = 'succeeded', result_digest = ?, result_at = ?
           WHERE proposal_id = ? AND executed_by = 'provider' AND result_status IS NULL`,
        )
        .run(outcome.proposal.dispatchedAt ?? output.at, output.resultDigest, output.at, proposalId);
      // Unreachable while the write lock is held; throwing rolls the write back.
      if (Number(changes) !== 1) throw new LedgerError('corrupt_record', 'proposal changed inside its transaction');
      return outcome;
    }, audit);
  }

  #runOwner(runId: string): string | undefined {
    return runOwnerRow(this.#conn, runId);
  }

  #proposal(proposalId: string): Proposal | undefined {
    return proposalRow(this.#conn, proposalId);
  }

  #proposalByCall(runId: string, callId: string): Proposal | undefined {
    return proposalByCallRow(this.#conn, runId, callId);
  }

  #request(requestId: string): ApprovalRequest | undefined {
    return requestRow(this.#conn, requestId);
  }
}
