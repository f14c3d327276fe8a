import type { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { auditForOutcome, consumeWritten, proposalWritten, resultWritten, decisionAuditFor } from './audit-if-written.ts';
import { effectiveStatus } from './effective-status.ts';
import type {
  AddDecisionResult,
  AuditFor,
  ApprovalRequest,
  ConsumeInput,
  ConsumeResult,
  Decision,
  DecisionAudit,
  EditInput,
  EligibilityFilter,
  LedgerStore,
  ListRequestsFilter,
  NewApprovalRequest,
  Proposal,
  ProposalInput,
  ProposalWithRequest,
  RecordEditResult,
  RecordProposalOptions,
  RecordProposalResult,
  ProviderOutputRecord,
  RecordProviderOutputOutcome,
  WriteAudit,
  RecordResultOutcome,
  RequestWithProposal,
  ResultRecord,
  WithdrawApprovalResult,
} from './types.ts';
import { LedgerError } from './errors.ts';
import { sameCall } from './same-call.ts';
import { consumedOnRecord } from './consumed-on-record.ts';
import { recordedProposalOf } from './as-recorded.ts';
import { copyResult, resealed, sealProposal, sealRequest, sealResult } from './copy-records.ts';
import { eligibleUnder } from './eligibility-rule.ts';
import { decisionRefusal, statusAfterDecision } from './decision-rules.ts';
import { editedRequestStatus, editRefusal, openedRequest } from './edit-rules.ts';
import { decisionsWithout, withdrawalRefusal } from './withdraw-rules.ts';
import { checkProviderOutput, providerOutputChange } from './provider-output-rules.ts';

/** A write decided but not yet applied: its answer, and the change that makes it true. */
interface Planned<R> {
  outcome: R;
  apply?: (() => void) | undefined;
}

/**
 * In-process ledger for tests, demos and single-process agents.
 * Every method body runs without awaiting, so each one is atomic on the JS
 * event loop. Records are kept sealed (deep-frozen copies, replaced on every change,
 * never edited), so reads hand out the stored object itself without copying it.
 *
 * Given `audit`, writes passed audit events append them to that log in the same
 * synchronous step: the records are built (and validated) before anything changes,
 * so either both the ledger change and its records land, or neither does.
 */
export class MemoryLedger implements LedgerStore {
  readonly auditLog: MemoryAuditLog | undefined;
  readonly #proposals = new Map<string, Proposal>();
  readonly #proposalByCall = new Map<string, string>();
  readonly #requests = new Map<string, ApprovalRequest>();
  readonly #requestByProposal = new Map<string, string>();
  /** run id → the agent that recorded the run's first call. */
  readonly #runOwners = new Map<string, string>();
  /** Refusal text digests integrations recorded, by proposal id. */
  readonly #callRefusals = new Map<string, Set<string>>();

  constructor(options: { audit?: MemoryAuditLog | undefined } = {}) {
    this.auditLog = options.audit;
  }

  async recordProposal(input: ProposalInput, options: RecordProposalOptions = {}): Promise<RecordProposalResult> {
    return this.#commit(this.#planProposal(input, options), auditForOutcome(options.audit, proposalWritten));
  }

  #planProposal(input: ProposalInput, options: RecordProposalOptions): Planned<RecordProposalResult> {
    const consumedAt = consumedOnRecord(options);
    const owner = this.#runOwners.get(input.runId);
    if (owner !== undefined && owner !== input.agent) return { outcome: { ok: false, reason: 'run_owned_by_other_agent' } };
    const callKey = `${input.runId}\u0000${input.callId}`;
    const existingId = this.#proposalByCall.get(callKey);
    if (existingId !== undefined) {
      const existing = this.#proposals.get(existingId)!;
      if (sameCall(existing, input)) return { outcome: { ok: true, proposal: existing, created: false } };
      return { outcome: { ok: false, reason: 'conflict', existing } };
    }
    if (this.#proposals.has(input.proposalId)) {
      throw new LedgerError('duplicate_id', `proposal id ${input.proposalId} already exists`);
    }
    const proposal = sealProposal(recordedProposalOf(input, consumedAt));
    const newRequest = options.request === undefined ? undefined : { ...options.request, proposalId: input.proposalId };
    if (newRequest !== undefined && this.#requests.has(newRequest.requestId)) {
      throw new LedgerError('duplicate_id', `approval request id ${newRequest.requestId} already exists`);
    }
    const request: ApprovalRequest | undefined = newRequest && sealRequest({ ...newRequest, status: 'pending', decisions: [] });
    return {
      outcome: { ok: true, proposal, created: true, request },
      apply: () => {
        this.#runOwners.set(input.runId, input.agent);
        this.#proposals.set(input.proposalId, proposal);
        this.#proposalByCall.set(callKey, input.proposalId);
        if (request !== undefined) {
          this.#requests.set(request.requestId, request);
          this.#requestByProposal.set(input.proposalId, request.requestId);
        }
      },
    };
  }

  /** Builds the audit records first (they may be invalid), then applies the change and appends them. */
  #commit<R>(planned: Planned<R>, audit: AuditFor<R> | undefined): R {
    const prepared = this.#prepareRecords(planned.outcome, audit);
    planned.apply?.();
    this.#appendPrepared(prepared);
    return planned.outcome;
  }

  /** The audit records `outcome` makes, built and validated (throws before anything changes); undefined without `audit`. */
  #prepareRecords<R>(outcome: R, audit: AuditFor<R> | undefined): ReturnType<MemoryAuditLog['prepare']> | undefined {
    return audit === undefined ? undefined : this.#log().prepare(audit(outcome));
  }

  /** Appends what #prepareRecords built (nothing may have run in between) and tells the log's listeners. */
  #appendPrepared(prepared: ReturnType<MemoryAuditLog['prepare']> | undefined): void {
    if (prepared === undefined) return;
    this.auditLog!.notifyLedgerAppend(prepared.commit());
  }

  #log(): MemoryAuditLog {
    // Never drop the events silently: a caller passing them expects them recorded.
    if (this.auditLog === undefined) throw new TypeError('this MemoryLedger has no audit log to append to');
    return this.auditLog;
  }

  async getRunOwner(runId: string): Promise<string | undefined> {
    return this.#runOwners.get(runId);
  }

  async getProposal(proposalId: string): Promise<Proposal | undefined> {
    return this.#proposals.get(proposalId);
  }

  async getProposalWithRequest(proposalId: string): Promise<ProposalWithRequest | undefined> {
    const proposal = this.#proposals.get(proposalId);
    if (proposal === undefined) return undefined;
    const requestId = this.#requestByProposal.get(proposalId);
    const request = requestId === undefined ? undefined : this.#requests.get(requestId);
    // Sealed records: handed out as they are stored (frozen, replaced on every write).
    return { proposal, request };
  }

  async getRequestWithProposal(requestId: string): Promise<RequestWithProposal | undefined> {
    const request = this.#requests.get(requestId);
    const proposal = request === undefined ? undefined : this.#proposals.get(request.proposalId);
    // Sealed records, as getProposalWithRequest hands them out.
    return request === undefined || proposal === undefined ? undefined : { request, proposal };
  }

  async findProposalByCall(runId: string, callId: string): Promise<Proposal | undefined> {
    const id = this.#proposalByCall.get(`${runId}\u0000${callId}`);
    return id === undefined ? undefined : this.#proposals.get(id);
  }

  async recordCallRefusal(proposalId: string, textDigest: string): Promise<void> {
    const known = this.#callRefusals.get(proposalId) ?? new Set<string>();
    known.add(textDigest);
    this.#callRefusals.set(proposalId, known);
  }

  async hasCallRefusal(proposalId: string, textDigest: string): Promise<boolean> {
    return this.#callRefusals.get(proposalId)?.has(textDigest) === true;
  }

  async findOpenCall(runId: string, toolName: string, argsDigest: string): Promise<Proposal | undefined> {
    let first: Proposal | undefined;
    for (const p of this.#proposals.values()) {
      if (p.runId !== runId || p.toolName !== toolName || p.argsDigest !== argsDigest || p.state !== 'proposed') continue;
      if (first === undefined || comesBefore(p, first)) first = p;
    }
    return first;
  }

  async createApprovalRequest(input: NewApprovalRequest): Promise<ApprovalRequest> {
    if (!this.#proposals.has(input.proposalId)) {
      throw new LedgerError('not_found', `no proposal ${input.proposalId}`);
    }
    if (this.#requestByProposal.has(input.proposalId) || this.#requests.has(input.requestId)) {
      throw new LedgerError('duplicate_id', `proposal ${input.proposalId} already has an approval request`);
    }
    const request = sealRequest({ ...input, status: 'pending', decisions: [] });
    this.#requests.set(input.requestId, request);
    this.#requestByProposal.set(input.proposalId, input.requestId);
    return request;
  }

  async getApprovalRequest(requestId: string): Promise<ApprovalRequest | undefined> {
    return this.#requests.get(requestId);
  }

  async findApprovalRequestByProposal(proposalId: string): Promise<ApprovalRequest | undefined> {
    const id = this.#requestByProposal.get(proposalId);
    return id === undefined ? undefined : this.#requests.get(id);
  }

  async listApprovalRequests(filter: ListRequestsFilter, now: number): Promise<ApprovalRequest[]> {
    const all = [...this.#requests.values()]
      .filter((r) => filter.status === undefined || effectiveStatus(r, now) === filter.status)
      .filter((r) => filter.eligibleFor === undefined || this.#eligible(r, filter.eligibleFor))
      .sort((a, b) => b.createdAt - a.createdAt || (a.requestId < b.requestId ? 1 : -1));
    return all.slice(0, filter.limit ?? 100);
  }

  #eligible(request: ApprovalRequest, who: EligibilityFilter): boolean {
    const proposal = this.#proposals.get(request.proposalId);
    return proposal !== undefined && eligibleUnder(request.eligible, who, proposal.principal);
  }

  async addDecision(
    requestId: string,
    decision: Decision,
    opts: { now: number; tokenIdIfApproved: string; audit?: DecisionAudit | undefined },
  ): Promise<AddDecisionResult> {
    const audit = decisionAuditFor(opts.audit, decision);
    return this.#commit(this.#planDecision(requestId, decision, opts), audit);
  }

  #planDecision(requestId: string, decision: Decision, opts: { now: number; tokenIdIfApproved: string }): Planned<AddDecisionResult> {
    const request = this.#requests.get(requestId);
    if (request === undefined) return { outcome: { ok: false, reason: 'not_found' } };
    const refusal = decisionRefusal(request, decision, opts.now);
    if (refusal !== undefined) return { outcome: { ok: false, reason: refusal } };
    const next = statusAfterDecision(request, decision);
    const after = sealRequest({
      ...request,
      decisions: [...request.decisions, { ...decision }],
      status: next,
      ...(next === 'approved' ? { tokenId: opts.tokenIdIfApproved, approvedAt: opts.now } : {}),
    });
    return { outcome: { ok: true, request: after }, apply: () => this.#requests.set(requestId, after) };
  }

  async recordEdit(input: EditInput, audit?: AuditFor<RecordEditResult>): Promise<RecordEditResult> {
    return this.#commit(this.#planEdit(input), audit);
  }

  // Every check before the first write, and no await anywhere: all of it or nothing.
  #planEdit(input: EditInput): Planned<RecordEditResult> {
    const original = this.#requests.get(input.original.requestId);
    const originalProposal = original && this.#proposals.get(original.proposalId);
    if (original === undefined || originalProposal === undefined) return { outcome: { ok: false, reason: 'not_found' } };
    const refusal = editRefusal(original, originalProposal, this.#runOwners.get(input.proposal.runId), input);
    if (refusal !== undefined) return { outcome: { ok: false, reason: refusal } };
    const { proposal: edited, request: opened } = input;
    const callKey = `${edited.runId}\u0000${edited.callId}`;
    const taken = this.#proposals.has(edited.proposalId) || this.#proposalByCall.has(callKey) || this.#requests.has(opened.requestId);
    if (taken) return { outcome: { ok: false, reason: 'conflict' } };
    const closed = sealRequest({ ...original, decisions: [...original.decisions, { ...input.original.decision }], status: 'edited' });
    const proposal = sealProposal({ ...edited, state: 'proposed' });
    const draft = openedRequest(input);
    if (input.editorApproval !== undefined) {
      draft.decisions.push({ ...input.editorApproval.decision });
      draft.status = editedRequestStatus(input);
      if (draft.status === 'approved') {
        draft.tokenId = input.editorApproval.tokenIdIfApproved;
        draft.approvedAt = input.now;
      }
    }
    const request = sealRequest(draft);
    return {
      outcome: { ok: true, original: closed, proposal, request },
      apply: () => {
        this.#requests.set(closed.requestId, closed);
        this.#proposals.set(proposal.proposalId, proposal);
        this.#proposalByCall.set(callKey, proposal.proposalId);
        this.#requests.set(request.requestId, request);
        this.#requestByProposal.set(proposal.proposalId, request.requestId);
      },
    };
  }

  async withdrawApproval(requestId: string, approver: string, now: number, audit?: AuditFor<WithdrawApprovalResult>): Promise<WithdrawApprovalResult> {
    const request = this.#requests.get(requestId);
    if (request === undefined) return this.#commit({ outcome: { ok: false, reason: 'not_found' } }, audit);
    const refusal = withdrawalRefusal(request, approver, now);
    if (refusal !== undefined) return this.#commit({ outcome: { ok: false, reason: refusal } }, audit);
    const after = sealRequest({ ...request, decisions: decisionsWithout(request, approver) });
    return this.#commit({ outcome: { ok: true, request: after }, apply: () => this.#requests.set(requestId, after) }, audit);
  }

  async revokeApproval(requestId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    const request = this.#requests.get(requestId);
    const status = request === undefined ? undefined : effectiveStatus(request, now);
    if (request === undefined || (status !== 'pending' && status !== 'approved')) return this.#commit({ outcome: false }, audit);
    return this.#commit(
      {
        outcome: true,
        apply: () => {
          this.#requests.set(requestId, resealed(request, { status: 'revoked' }));
        },
      },
      audit,
    );
  }

  // Written out rather than planned with an `apply` closure (as the rarer writes are): this
  // runs on every dispatch. Same order: refusals first, records built (and validated) before
  // anything changes, then the change, then the records appended.
  async consume(input: ConsumeInput, given?: WriteAudit<ConsumeResult>): Promise<ConsumeResult> {
    const audit = auditForOutcome(given, consumeWritten);
    const refused = this.#consumeRefusal(input);
    if (refused !== undefined) return this.#commit({ outcome: refused }, audit);
    const proposal = this.#proposals.get(input.proposalId)!;
    const request = input.approval === undefined ? undefined : this.#requests.get(input.approval.requestId)!;
    // The record as it reads once applied: what is stored is what the caller gets.
    const after = resealed(proposal, { state: 'dispatched', dispatchedAt: input.now });
    const used = request === undefined ? undefined : resealed(request, { status: 'consumed', consumedAt: input.now });
    const outcome: ConsumeResult = { ok: true, proposal: after };
    const prepared = this.#prepareRecords(outcome, audit);
    if (used !== undefined) this.#requests.set(used.requestId, used);
    this.#proposals.set(after.proposalId, after);
    this.#appendPrepared(prepared);
    return outcome;
  }

  /** Why `input` cannot be consumed now, or undefined when it can. */
  #consumeRefusal(input: ConsumeInput): ConsumeResult | undefined {
    const proposal = this.#proposals.get(input.proposalId);
    if (proposal === undefined) return { ok: false, reason: 'not_found' };
    if (proposal.state !== 'proposed') return { ok: false, reason: 'already_consumed' };
    if (input.approval !== undefined) {
      const request = this.#requests.get(input.approval.requestId);
      if (request === undefined || request.proposalId !== proposal.proposalId) return { ok: false, reason: 'not_found' };
      const failure = approvalConsumeFailure(request, input.approval.tokenId, input.now);
      if (failure !== undefined) return { ok: false, reason: failure };
    }
    return undefined;
  }

  async recordResult(proposalId: string, result: ResultRecord, given?: WriteAudit<RecordResultOutcome>): Promise<RecordResultOutcome> {
    const audit = auditForOutcome(given, resultWritten);
    const proposal = this.#proposals.get(proposalId);
    if (proposal === undefined) return this.#commit({ outcome: { ok: false, reason: 'not_found' } }, audit);
    const refused = recordResultOnce(proposal, result);
    if (refused !== undefined) return this.#commit({ outcome: refused }, audit);
    const stored = sealResult(result);
    // Written out (no planned `apply` closure): this runs on every dispatch. Records first, then the change.
    const outcome: RecordResultOutcome = { ok: true, created: true, result: stored };
    const prepared = this.#prepareRecords(outcome, audit);
    this.#proposals.set(proposalId, resealed(proposal, { result: stored }));
    this.#appendPrepared(prepared);
    return outcome;
  }

  async recordProviderOutput(proposalId: string, output: ProviderOutputRecord, audit?: AuditFor<RecordProviderOutputOutcome>): Promise<RecordProviderOutputOutcome> {
    checkProviderOutput(output);
    const outcome = providerOutputChange(this.#proposals.get(proposalId), output);
    if (!outcome.ok || !outcome.created) return this.#commit({ outcome }, audit);
    const stored = sealProposal(outcome.proposal);
    return this.#commit({ outcome: { ...outcome, proposal: stored }, apply: () => this.#proposals.set(proposalId, stored) }, audit);
  }
}

/**
 * The write-once rule for results, on a proposal as read: undefined when `result` may be
 * stored now, otherwise the answer (a repeat of the stored result, or why not). Stores
 * apply it to the row their conditional UPDATE did not change.
 */
export function recordResultOnce(proposal: Proposal, result: ResultRecord): RecordResultOutcome | undefined {
  if (proposal.state !== 'dispatched') return { ok: false, reason: 'not_dispatched' };
  const existing = proposal.result;
  if (existing === undefined) return undefined;
  if (existing.status === result.status && existing.resultDigest === result.resultDigest) {
    return { ok: true, created: false, result: copyResult(existing) };
  }
  return { ok: false, reason: 'conflict', existing: copyResult(existing) };
}

/** Why an approval request cannot be consumed now with this token id, or undefined if it can. */
export function approvalConsumeFailure(
  request: ApprovalRequest,
  tokenId: string,
  now: number,
): 'not_approved' | 'already_consumed' | 'expired' | 'revoked' | 'token_mismatch' | undefined {
  switch (effectiveStatus(request, now)) {
    case 'consumed':
      return 'already_consumed';
    case 'expired':
      return 'expired';
    case 'revoked':
      return 'revoked';
    case 'approved':
      return request.tokenId === tokenId ? undefined : 'token_mismatch';
    default:
      return 'not_approved';
  }
}

/** findOpenCall's order: runtime calls before provider-run ones, then the oldest, then the smaller proposal id. */
function comesBefore(a: Proposal, b: Proposal): boolean {
  const aByProvider = a.executedBy === 'provider';
  if (aByProvider !== (b.executedBy === 'provider')) return !aByProvider;
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.proposalId < b.proposalId);
}
