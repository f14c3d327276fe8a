import type { AddDecisionResult, ApprovalRequest, AuditFor, ConsumeFailure, ConsumeInput, ConsumeResult, Decision, EditInput, LedgerStore, ListRequestsFilter, NewApprovalRequest, Proposal, ProposalInput, ProposalWithRequest, RecordProposalOptions, RecordEditResult, RecordProposalResult, RecordProviderOutputOutcome, RecordResultOutcome, ProviderOutputRecord, ResultRecord, WithdrawApprovalResult, WriteAudit, RequestWithProposal, DecisionAudit } from '@countersign/core/ledger';
import { approvalConsumeFailure, checkProviderOutput, consumedOnRecord, consumeWritten, copyResult, LedgerError, providerOutputChange, recordResultOnce, resultWritten, sameCall, withdrawalRefusal, auditForOutcome, proposalWritten, checkedByStatus } from '@countersign/core/ledger';
import type { PgDatabase, Query } from './database.ts';
import { AuditedBatch, type WorkMode } from './audited-batch.ts';
import type { PostgresAuditLog } from './postgres-audit-log.ts';
import type { LedgerSql } from './ledger-sql.ts';
import { decideIn } from './postgres-decide.ts';
import { recordEditIn } from './postgres-edit.ts';
import { RunOwners } from './run-owners.ts';
import { proposalSentWritten, requestInsertError, sendProposal } from './postgres-propose.ts';
import type { AuditEvent } from '@countersign/core/audit';
import { projectionsColumn, proposalFromRow, proposalParams, type Row, requestFromRow, requestParams, text } from '@countersign/core/store-kit';

/**
 * LedgerStore on PostgreSQL. Writes that decide something are either one
 * conditional statement (consume, revoke, recordResult, inserts) or a
 * transaction that first locks the row it decides on (addDecision, recordEdit).
 *
 * Given `auditLog` (the store's log on the same database), a write passed audit events
 * runs in one transaction with them: the chain's advisory lock, its statements, the
 * audit append (head, insert), one COMMIT; both land or neither does. Such writes
 * submitted together share the transaction (AuditedBatch), each under its own savepoint.
 */
export class PostgresLedger implements LedgerStore {
  readonly #db: PgDatabase;
  readonly #sql: LedgerSql;
  readonly auditLog: PostgresAuditLog | undefined;
  readonly #batch: AuditedBatch;
  readonly #runOwners = new RunOwners();

  constructor(db: PgDatabase, sql: LedgerSql, auditLog?: PostgresAuditLog) {
    this.#db = db;
    this.#sql = sql;
    this.auditLog = auditLog;
    this.#batch = new AuditedBatch(db, auditLog);
  }

  /** `run` in one transaction with the records `audit` builds from its outcome (group-committed, see AuditedBatch). */
  async #inTransaction<R>(run: (query: Query) => Promise<R>, audit: AuditFor<R> | undefined, mode: WorkMode): Promise<R> {
    // Without records to append: a plain transaction, no chain lock.
    if (audit === undefined) return this.#db.transaction(run);
    return this.#batch.submit<R>(async (query) => {
      const outcome = await run(query);
      return { outcome, events: audit === undefined ? [] : audit(outcome) };
    }, mode);
  }

  async recordProposal(input: ProposalInput, options: RecordProposalOptions = {}): Promise<RecordProposalResult> {
    const consumedAt = consumedOnRecord(options) ?? null;
    const audit = options.audit;
    const recorded =
      options.request === undefined && audit === undefined
        ? await this.#recordProposal(this.#db.write, input, undefined, consumedAt)
        : audit !== undefined && typeof audit !== 'function'
          ? await this.#recordProposalPlanned(input, options.request, consumedAt, audit.ifWritten)
          : // Concurrent: one statement decides; what follows reads, or inserts the new proposal's own request.
            await this.#inTransaction((query) => this.#recordProposal(query, input, options.request, consumedAt), audit, 'concurrent');
    // Committed, and the run is the agent's (ok is never returned otherwise).
    if (recorded.ok) this.#runOwners.remember(input.runId, input.agent);
    return recorded;
  }

  /**
   * recordProposal with its records known before the write: the insert (which sets its
   * flag when it records the call), the chain's lock, the insert of the records under that
   * flag and COMMIT leave in one round trip (figures in round-trips.test.ts: propose 2 -> 1).
   * What wrote nothing is explained after COMMIT, as before it: a call already there is
   * read (one more round trip, on a repeat only), and a claim that raced a concurrent first
   * call of the run runs again step by step, with the same records.
   */
  async #recordProposalPlanned(
    input: ProposalInput,
    request: RecordProposalOptions['request'],
    consumedAt: number | null,
    events: readonly AuditEvent[],
  ): Promise<RecordProposalResult> {
    const owned = this.#runOwners.owns(input.runId, input.agent);
    const send = (query: Query, flag: string) => sendProposal(query, this.#sql.propose, input, request, consumedAt, owned, flag);
    const sent = await this.#batch.submitPlanned(send, events, proposalSentWritten);
    switch (sent.kind) {
      case 'created':
        return { ok: true, proposal: sent.proposal, created: true, request: sent.request };
      case 'other_owner':
        return { ok: false, reason: 'run_owned_by_other_agent' };
      case 'not_inserted': {
        // ON CONFLICT waited for a concurrent insert of the same call to commit, so this later read finds the row that beat us.
        const found = await this.#db.read(this.#sql.proposalByCall, [input.runId, input.callId]);
        return answerExisting(input, found.rows[0]);
      }
      case 'claim_raced':
        return this.#inTransaction(
          (query) => this.#recordProposal(query, input, request, consumedAt),
          auditForOutcome({ ifWritten: events }, proposalWritten),
          'concurrent',
        );
    }
  }

  /** `consumedAt`: the proposal statements' $17 (NULL records the call `proposed`). */
  async #recordProposal(query: Query, input: ProposalInput, request: RecordProposalOptions['request'], consumedAt: number | null): Promise<RecordProposalResult> {
    // Ownership first, and before any comparison: another agent learns nothing about the run's calls.
    // The runs row never changes once inserted, so no transaction is needed around the two steps.
    // Usually one round trip claims the run and inserts (claimAndInsertProposal); only a
    // claim that raced a concurrent first call of the same run (owner NULL) reads again.
    const params = proposalParams(input);
    // A run this process saw committed as this agent's: the plain insert, without the claim.
    if (this.#runOwners.owns(input.runId, input.agent)) return this.#insertOwned(query, input, params, request, consumedAt);
    params.push(consumedAt);
    const combined = (await query(this.#sql.claimAndInsertProposal, params)).rows[0];
    if (combined === undefined) throw new LedgerError('corrupt_record', 'proposal statement returned no row');
    const owner = combined.run_owner === null ? await this.#runOwnerAfterConflict(query, input.runId) : text(combined, 'run_owner');
    if (owner !== input.agent) return { ok: false, reason: 'run_owned_by_other_agent' };
    // Insert first: ON CONFLICT DO NOTHING waits for a concurrent insert of the same
    // call to commit, so the lookup below always finds the row that beat us.
    const row = combined.run_owner === null ? (await query(this.#sql.insertProposal, params)).rows[0] : combined.proposal_id === null ? undefined : combined;
    return this.#afterInsert(query, input, row, request);
  }

  /** The insert of a call in a run known to be `input.agent`'s (see RunOwners). */
  async #insertOwned(query: Query, input: ProposalInput, params: unknown[], request: RecordProposalOptions['request'], consumedAt: number | null): Promise<RecordProposalResult> {
    // A call that opens a request is never recorded consumed (consumedOnRecord refused that).
    if (request !== undefined) return this.#insertOwnedWithRequest(query, input, params, request);
    const row = (await query(this.#sql.insertOwnedProposal, [...params, consumedAt])).rows[0];
    return this.#afterInsert(query, input, row, request);
  }

  /** `#insertOwned` of a call that opens an approval request: both inserts in one statement (one round trip, not two). */
  async #insertOwnedWithRequest(
    query: Query,
    input: ProposalInput,
    params: unknown[],
    request: NonNullable<RecordProposalOptions['request']>,
  ): Promise<RecordProposalResult> {
    // The request's parameters without its proposal id, which the statement takes from the inserted proposal.
    const [requestId, , ...rest] = requestParams({ ...request, proposalId: input.proposalId });
    const row = (await query(this.#sql.insertOwnedProposalWithRequest, [...params, requestId, ...rest]).catch(requestInsertError)).rows[0];
    // Not inserted: the call as stored explains (no request was opened).
    if (row === undefined) return this.#afterInsert(query, input, undefined, undefined);
    const opened = row.request_json;
    if (opened === null || typeof opened !== 'object' || Array.isArray(opened)) throw new LedgerError('corrupt_record', 'proposal insert returned no request');
    return { ok: true, proposal: proposalFromRow(row), created: true, request: requestFromRow(opened as Record<string, unknown>) };
  }

  /** The proposal's row as inserted (its request opened too), or, if the call was there already, the call as stored. */
  async #afterInsert(query: Query, input: ProposalInput, row: Row | undefined, request: RecordProposalOptions['request']): Promise<RecordProposalResult> {
    if (row !== undefined) {
      const opened = request === undefined ? undefined : await this.#insertRequest(query, { ...request, proposalId: input.proposalId });
      return { ok: true, proposal: proposalFromRow(row), created: true, request: opened };
    }
    const found = await query(this.#sql.proposalByCall, [input.runId, input.callId]);
    return answerExisting(input, found.rows[0]);
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1');
  }

  async getRunOwner(runId: string): Promise<string | undefined> {
    const { rows } = await this.#db.read(this.#sql.runOwner, [runId]);
    return rows[0] === undefined ? undefined : text(rows[0], 'agent');
  }

  /** The run's owner when the claim found neither its own row nor one in its snapshot (a concurrent claim committed). */
  async #runOwnerAfterConflict(query: Query, runId: string): Promise<string> {
    const { rows } = await query(this.#sql.runOwner, [runId]);
    const owner = rows[0] === undefined ? undefined : text(rows[0], 'agent');
    if (owner === undefined) throw new LedgerError('corrupt_record', `run ${runId} has no owner although its claim conflicted`);
    return owner;
  }

  async getProposal(proposalId: string): Promise<Proposal | undefined> {
    const { rows } = await this.#db.read(this.#sql.proposalById, [proposalId]);
    return rows[0] === undefined ? undefined : proposalFromRow(rows[0]);
  }

  async getProposalWithRequest(proposalId: string): Promise<ProposalWithRequest | undefined> {
    // One statement, one round trip, one snapshot: the request rides along as JSON.
    const { rows } = await this.#db.read(this.#sql.proposalWithRequest, [proposalId]);
    const row = rows[0];
    if (row === undefined) return undefined;
    const request = row.request_json;
    if (request !== null && (typeof request !== 'object' || Array.isArray(request))) {
      throw new LedgerError('corrupt_record', 'request of a proposal: expected a JSON object');
    }
    return { proposal: proposalFromRow(row), request: request === null ? undefined : requestFromRow(request as Record<string, unknown>) };
  }

  async getRequestWithProposal(requestId: string): Promise<RequestWithProposal | undefined> {
    // One statement, one round trip, one snapshot: the request rides along as JSON.
    const { rows } = await this.#db.read(this.#sql.requestWithProposal, [requestId]);
    const row = rows[0];
    if (row === undefined) return undefined;
    const request = row.request_json;
    if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new LedgerError('corrupt_record', 'request with its proposal: expected a JSON object');
    return { request: requestFromRow(request as Record<string, unknown>), proposal: proposalFromRow(row) };
  }

  async findProposalByCall(runId: string, callId: string): Promise<Proposal | undefined> {
    const { rows } = await this.#db.read(this.#sql.proposalByCall, [runId, callId]);
    return rows[0] === undefined ? undefined : proposalFromRow(rows[0]);
  }

  async recordCallRefusal(proposalId: string, textDigest: string, at: number): Promise<void> {
    await this.#db.write(this.#sql.recordCallRefusal, [proposalId, textDigest, at]);
  }

  async hasCallRefusal(proposalId: string, textDigest: string): Promise<boolean> {
    const { rows } = await this.#db.read(this.#sql.hasCallRefusal, [proposalId, textDigest]);
    return rows.length > 0;
  }

  async findOpenCall(runId: string, toolName: string, argsDigest: string): Promise<Proposal | undefined> {
    const { rows } = await this.#db.read(this.#sql.openCall, [runId, toolName, argsDigest]);
    return rows[0] === undefined ? undefined : proposalFromRow(rows[0]);
  }

  async createApprovalRequest(input: NewApprovalRequest): Promise<ApprovalRequest> {
    return this.#insertRequest(this.#db.write, input);
  }

  async #insertRequest(query: Query, input: NewApprovalRequest): Promise<ApprovalRequest> {
    const { rows } = await query(this.#sql.insertRequest, requestParams(input)).catch(requestInsertError);
    return requestFromRow(rows[0]!);
  }

  async getApprovalRequest(requestId: string): Promise<ApprovalRequest | undefined> {
    const { rows } = await this.#db.read(this.#sql.requestById, [requestId]);
    return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
  }

  async findApprovalRequestByProposal(proposalId: string): Promise<ApprovalRequest | undefined> {
    const { rows } = await this.#db.read(this.#sql.requestByProposal, [proposalId]);
    return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
  }

  async listApprovalRequests(filter: ListRequestsFilter, now: number): Promise<ApprovalRequest[]> {
    const who = filter.eligibleFor;
    const { rows } = await this.#db.query(this.#sql.listRequests, [
      filter.status ?? null,
      now,
      filter.limit ?? 100,
      who?.approverId ?? null,
      [...(who?.roles ?? [])],
      [...(who?.principals ?? [])],
    ]);
    return rows.map(requestFromRow);
  }

  async addDecision(requestId: string, decision: Decision, opts: { now: number; tokenIdIfApproved: string; audit?: DecisionAudit | undefined }): Promise<AddDecisionResult> {
    const { audit } = opts;
    const decide = (query: Query, flag?: string) => decideIn(query, this.#sql, requestId, decision, opts, flag);
    // Every statement is sent before any answer (decideIn): BEGIN to COMMIT in one round trip.
    if (audit === undefined) {
      return await this.#db.transactionWithTail(async (query) => {
        const outcome = decide(query);
        return { result: outcome, tail: outcome };
      });
    }
    // Concurrent: the decision is decided in SQL under the request's lock, its statements sent together.
    if (typeof audit === 'function') return this.#inTransaction((query) => decide(query), audit, 'concurrent');
    // Records known before the write, one list per status it can lead to: the decision,
    // the chain's lock, the insert of the list of the status written and COMMIT leave in
    // one round trip.
    return this.#batch.submitPlannedByOutcome((query, flag) => decide(query, flag), Object.fromEntries(checkedByStatus(audit, decision)), decidedStatus);
  }

  async recordEdit(input: EditInput, audit?: AuditFor<RecordEditResult>): Promise<RecordEditResult> {
    // It reads, then writes on what it read (as addDecision): alone in its batch.
    return this.#inTransaction((query) => recordEditIn(query, this.#sql, input), audit, 'alone');
  }

  async withdrawApproval(requestId: string, approver: string, now: number, audit?: AuditFor<WithdrawApprovalResult>): Promise<WithdrawApprovalResult> {
    return this.#inTransaction(async (query): Promise<WithdrawApprovalResult> => {
      // The same row lock as addDecision: a concurrent approval waits here (or we wait for
      // it), and the read after the lock sees every decision committed before.
      const locked = await query(this.#sql.lockRequest, [requestId]);
      if (locked.rows[0] === undefined) return { ok: false, reason: 'not_found' };
      const current = await query(this.#sql.requestById, [requestId]);
      const refusal = withdrawalRefusal(requestFromRow(current.rows[0]!), approver, now);
      if (refusal !== undefined) return { ok: false, reason: refusal };
      await query(this.#sql.withdrawDecision, [requestId, approver]);
      const updated = await query(this.#sql.requestById, [requestId]);
      return { ok: true, request: requestFromRow(updated.rows[0]!) };
    }, audit, 'alone');
  }

  async revokeApproval(requestId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    const revoke = async (query: Query) => (await query(this.#sql.revokeRequest, [requestId, now])).rowCount === 1;
    return audit === undefined ? revoke(this.#db.write) : this.#inTransaction(revoke, audit, 'concurrent');
  }

  async consume(input: ConsumeInput, audit?: WriteAudit<ConsumeResult>): Promise<ConsumeResult> {
    if (audit === undefined) return this.#consume(this.#db.write, input);
    if (typeof audit === 'function') return this.#inTransaction((query) => this.#consume(query, input), audit, 'concurrent');
    // Records known before the write: the consume, the chain's lock, the insert of the
    // records (if the consume sets its flag) and COMMIT leave in one round trip.
    return this.#batch.submitPlanned((query, flag) => this.#consume(query, input, flag), audit.ifWritten, consumeWritten);
  }

  /** `flag`: the setting the statement sets to 'y' when it dispatched (see AuditedBatch.submitPlanned). */
  async #consume(query: Query, input: ConsumeInput, flag?: string): Promise<ConsumeResult> {
    const { proposalId, approval, now } = input;
    // One round trip decides and explains (see `consume` in ledger-sql.ts). No retry:
    // the statement decides on the rows it has locked, and its failure reasons come
    // from those same locked rows, so the answer cannot disagree with the decision.
    // A call without an approval only moves its proposal: the leaner statement (see
    // `consumeUnapproved`), whose answer has the same shape.
    const sql = this.#sql;
    const { rows } =
      approval === undefined
        ? await (flag === undefined ? query(sql.consumeUnapproved, [proposalId, now]) : query(sql.consumeUnapprovedFlagged, [proposalId, now, flag]))
        : await query(flag === undefined ? sql.consume : sql.consumeFlagged, [proposalId, approval.requestId, approval.tokenId, now, ...(flag === undefined ? [] : [flag])]);
    const row = rows[0];
    if (row === undefined) throw new LedgerError('corrupt_record', 'consume statement returned no row');
    if (row.proposal_id !== null) return { ok: true, proposal: proposalFromRow(row) };
    const reason = consumeFailure(row, input);
    if (reason === undefined) {
      // Unreachable: we held both locks and the locked rows allowed the consume.
      throw new LedgerError('corrupt_record', `consume of ${proposalId} changed nothing although its locked rows allowed it`);
    }
    return { ok: false, reason };
  }

  async recordResult(proposalId: string, result: ResultRecord, audit?: WriteAudit<RecordResultOutcome>): Promise<RecordResultOutcome> {
    if (audit === undefined) return this.#recordResult(this.#db.write, proposalId, result);
    // Concurrent: the write-once UPDATE decides; a refusal only reads the row to explain it.
    if (typeof audit === 'function') return this.#inTransaction((query) => this.#recordResult(query, proposalId, result), audit, 'concurrent');
    return this.#batch.submitPlanned((query, flag) => this.#recordResultFlagged(query, proposalId, result, flag), audit.ifWritten, resultWritten);
  }

  /**
   * `#recordResult` with nothing sent after an answer: the UPDATE sets `flag` when it
   * stores the result, and the read that would explain a refusal goes right behind it
   * (it returns no row when the result was stored), so both, the audit insert and COMMIT
   * share one round trip.
   */
  async #recordResultFlagged(query: Query, proposalId: string, result: ResultRecord, flag: string): Promise<RecordResultOutcome> {
    const updated = query(this.#sql.recordResultFlagged, [proposalId, result.status, result.resultDigest, result.at, projectionsColumn(result), flag]);
    const explained = query(this.#sql.proposalUnlessWritten, [proposalId, flag]);
    const [{ rowCount }, { rows }] = await Promise.all([updated, explained]);
    if (rowCount === 1) return { ok: true, created: true, result: copyResult(result) };
    const proposal = rows[0] === undefined ? undefined : proposalFromRow(rows[0]);
    if (proposal === undefined) return { ok: false, reason: 'not_found' };
    return recordResultOnce(proposal, result) ?? { ok: false, reason: 'not_dispatched' };
  }

  async #recordResult(query: Query, proposalId: string, result: ResultRecord): Promise<RecordResultOutcome> {
    const { rowCount } = await query(this.#sql.recordResult, [proposalId, result.status, result.resultDigest, result.at, projectionsColumn(result)]);
    if (rowCount === 1) return { ok: true, created: true, result: copyResult(result) };
    // Nothing changed: explain from the row as committed. A stored result never changes
    // again, so a conflict or repeat read here is what the UPDATE saw. A dispatched call
    // without a result can only mean it was still `proposed` when the UPDATE ran (a
    // consume committed in between), which is what the caller is told.
    const { rows } = await query(this.#sql.proposalById, [proposalId]);
    const proposal = rows[0] === undefined ? undefined : proposalFromRow(rows[0]);
    if (proposal === undefined) return { ok: false, reason: 'not_found' };
    return recordResultOnce(proposal, result) ?? { ok: false, reason: 'not_dispatched' };
  }

  async recordProviderOutput(proposalId: string, output: ProviderOutputRecord, audit?: AuditFor<RecordProviderOutputOutcome>): Promise<RecordProviderOutputOutcome> {
    checkProviderOutput(output);
    // Rare (once per hosted tool call): lock the row, decide, write, in one transaction with the records.
    return this.#inTransaction(async (query) => {
      const { rows } = await query(this.#sql.proposalForUpdate, [proposalId]);
      const outcome = providerOutputChange(rows[0] === undefined ? undefined : proposalFromRow(rows[0]), output);
      if (!outcome.ok || !outcome.created) return outcome;
      const { rowCount } = await query(this.#sql.recordProviderOutput, [proposalId, outcome.proposal.dispatchedAt ?? output.at, output.resultDigest, output.at]);
      // Unreachable while the row lock is held; throwing rolls the write back.
      if (rowCount !== 1) throw new LedgerError('corrupt_record', `provider output of ${proposalId} changed nothing although its locked row allowed it`);
      return outcome;
    }, audit, 'concurrent');
  }
}

/**
 * Why the consume statement changed nothing, from what that statement returned.
 * Same order of checks as MemoryLedger; undefined means nothing stood in the way.
 */
function consumeFailure(row: Row, input: ConsumeInput): ConsumeFailure | undefined {
  if (row.proposal_locked !== true) {
    // Not locked: missing in our snapshot, or its newest version is no longer proposed.
    return row.seen_state === null ? 'not_found' : 'already_consumed';
  }
  if (input.approval === undefined) return undefined;
  // The request row as locked (its newest version), or NULL: absent, or another proposal's.
  const locked = row.locked_request;
  if (locked === null || locked === undefined) return 'not_found';
  if (typeof locked !== 'object') throw new LedgerError('corrupt_record', 'column locked_request: expected a JSON object');
  // Decisions are not part of the row and play no part in consuming.
  const request = requestFromRow({ ...(locked as Row), decisions: [] });
  return approvalConsumeFailure(request, input.approval.tokenId, input.now);
}

/** A call not inserted, explained by the call stored under its (run, call id): a repeat, a conflict, or (none) a taken proposal id. */
function answerExisting(input: ProposalInput, row: Row | undefined): RecordProposalResult {
  const existing = row === undefined ? undefined : proposalFromRow(row);
  if (existing === undefined) throw new LedgerError('duplicate_id', `proposal id ${input.proposalId} already exists`);
  if (sameCall(existing, input)) return { ok: true, proposal: existing, created: false };
  return { ok: false, reason: 'conflict', existing };
}

/** The status a decision left its request in: whose `AuditByStatus` list is appended (none when refused). */
function decidedStatus(outcome: AddDecisionResult): string | undefined {
  return outcome.ok ? outcome.request.status : undefined;
}
