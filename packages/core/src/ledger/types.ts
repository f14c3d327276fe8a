/**
 * The ledger: the server-owned record of every call the model proposed, every
 * approval request and decision, and the single-use consumption that lets a call
 * run once (invariants 4 and 5). Backends implement `LedgerStore`; all of them
 * must pass `runLedgerConformance` from `@countersign/core/testing`.
 *
 * All times are milliseconds since the epoch, passed in by the caller (the gate
 * owns the clock), so a store never reads the wall clock itself.
 */

import type { AuditEvent, AuditLog } from '../audit/types.ts';
import type { PasskeyEvidence } from './passkey-evidence.ts';

/** A call exactly as the model produced it, recorded before anything else happens. */
export interface ProposalInput {
  proposalId: string;
  runId: string;
  sessionId: string;
  /** On whose behalf the agent acts (the end user / tenant). */
  principal: string;
  /**
   * The agent identity that recorded the call (the authenticated agent runtime, or
   * `DEFAULT_AGENT_ID` in process). A run belongs to the agent that recorded its first
   * call: every later call of the run must come from the same agent.
   */
  agent: string;
  /** The tool-call id the model gave the call. Unique within a run. */
  callId: string;
  toolName: string;
  /** SHA-256 (hex) of the tool definition pinned when the call was proposed, if known. */
  definitionDigest?: string | undefined;
  /** RFC 8785 text of the arguments: what will execute, byte for byte. */
  canonicalArgs: string;
  /** SHA-256 (hex) of `canonicalArgs`. */
  argsDigest: string;
  /** Where the call came from, e.g. the model response id. */
  responseRef?: string | undefined;
  /** For approve-with-edits: the proposal this one was edited from. */
  parentProposalId?: string | undefined;
  /**
   * What the agent said about the call (at most `MAX_PROPOSAL_CONTEXT_LENGTH` characters).
   * Untrusted words shown to the approver as such; never part of what is approved or run.
   */
  context?: string | undefined;
  /**
   * Only on a tool-definition review's record (never on a model's call): the agent that
   * registered the definition under review (`registerTools`), named to the approver.
   */
  registeredBy?: string | undefined;
  /**
   * `provider`: a hosted (server-side) tool the model's provider already ran before the
   * response was recorded (a Messages `server_tool_use`, a Responses `web_search_call`…).
   * Recorded so policy decides on it and the relayed output can be checked; never
   * authorized or dispatched through Countersign (`provider_executed`): a runtime offering
   * a tool of the same name must not run the provider's call a second time.
   */
  executedBy?: 'provider' | undefined;
  createdAt: number;
}

export type ProposalState = 'proposed' | 'dispatched';

export interface ResultRecord {
  status: 'succeeded' | 'failed';
  /** SHA-256 (hex) of the canonical result (or of the error message for failures). */
  resultDigest: string;
  /**
   * For a succeeded result: SHA-256 (hex) of each form a runtime may relay to the model
   * (`RELAY_PROJECTIONS`), computed from the raw result at `complete`, for CASA check 5
   * (`checkRelayed`). Absent on failures and on results recorded before it existed.
   * Derived from the same raw result as `resultDigest`, so the write-once rule compares
   * only status and digest.
   */
  projections?: Readonly<Record<string, string>> | undefined;
  at: number;
}

export interface Proposal extends ProposalInput {
  state: ProposalState;
  dispatchedAt?: number | undefined;
  result?: ResultRecord | undefined;
}

/** Who may decide a request. Stored with the request, so it is fixed when the call is proposed. */
export interface ApproverRule {
  /** The principal the call acts for may approve it themself. */
  principalSelf?: boolean | undefined;
  /** Named approver identities. */
  approvers?: string[] | undefined;
  /** Any authenticated approver holding one of these roles. */
  roles?: string[] | undefined;
}

/**
 * `expired` is never stored: a `pending` or `approved` request whose `expiresAt`
 * has passed reads as expired (see `effectiveStatus`). `edited`: an approver replaced
 * the call with an edited one (approve-with-edits); the closing decision's
 * `editedProposalId` names the call to run instead. Nothing of the original runs.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'revoked' | 'consumed' | 'expired' | 'edited';

export interface Decision {
  /** Authenticated identity of the person deciding: never taken from a request body. */
  approver: string;
  decision: 'approve' | 'deny';
  reason?: string | undefined;
  at: number;
  /** Approve-with-edits: the new proposal created from the approver's edited arguments. */
  editedProposalId?: string | undefined;
  /** Under a passkey rule: the approver's verified WebAuthn assertion over this decision's claims. */
  passkey?: PasskeyEvidence | undefined;
}

export interface NewApprovalRequest {
  requestId: string;
  proposalId: string;
  createdAt: number;
  /** Deadline to decide and to execute; the minted token carries the same expiry. */
  expiresAt: number;
  /** n in n-of-m: distinct approvals needed. At least 1. */
  requiredApprovals: number;
  eligible: ApproverRule;
  /** The policy rule that asked for approval, for the audit trail and the UI. */
  ruleId?: string | undefined;
  /**
   * `required`: every decision needs the approver's passkey (`approval: { passkey: required }`).
   * Fixed when the request opens, so a later policy change never weakens a pending request.
   */
  passkey?: 'required' | undefined;
  /** That rule's human description, as the policy said it when the call was proposed. */
  ruleDescription?: string | undefined;
}

export interface ApprovalRequest extends NewApprovalRequest {
  status: Exclude<ApprovalStatus, 'expired'>;
  decisions: Decision[];
  /** Set when the request becomes approved: the `jti` of the one token that may consume it. */
  tokenId?: string | undefined;
  approvedAt?: number | undefined;
  consumedAt?: number | undefined;
}

export type RecordProposalResult =
  /** `request`: the approval request opened with the proposal (`RecordProposalOptions.request`), when created. */
  | { ok: true; proposal: Proposal; created: boolean; request?: ApprovalRequest | undefined }
  | { ok: false; reason: 'conflict'; existing: Proposal }
  /** The run was started by another agent: nothing about it (not even a matching call) is returned. */
  | { ok: false; reason: 'run_owned_by_other_agent' };

export type AddDecisionResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: 'not_found' | 'expired' | 'already_decided' | 'duplicate_approver' | 'invalid_decision' };

export type WithdrawApprovalResult =
  /** The request as it reads after the withdrawal: still pending, without the approver's approval. */
  | { ok: true; request: ApprovalRequest }
  /**
   * `already_decided`: no longer pending (approved, denied, edited, revoked, consumed);
   * `no_approval`: this approver has no approval on the request (never gave one, or withdrew it).
   */
  | { ok: false; reason: 'not_found' | 'expired' | 'already_decided' | 'no_approval' };

/**
 * Approve-with-edits as one ledger operation (see `LedgerStore.recordEdit`): the deny
 * that closes the original request, the edited call, its own request and, when the
 * editor may approve it, the editor's approval.
 */
export interface EditInput {
  /** The request being replaced, and the deny closing it; `decision.editedProposalId` names `proposal`. */
  original: { requestId: string; decision: Decision };
  /** The edited call: same run, session, principal, agent and tool as the original, `parentProposalId` its proposal. */
  proposal: ProposalInput;
  /** The edited call's own request (`proposalId` = `proposal.proposalId`). */
  request: NewApprovalRequest;
  /** The editor's approval of the edited call, recorded on `request` in the same step. */
  editorApproval?: { decision: Decision; tokenIdIfApproved: string } | undefined;
  now: number;
}

export type EditRefusal =
  /** The closing deny or the editor's approval is refused by the decision rules (`decisionRefusal`). */
  | Extract<AddDecisionResult, { ok: false }>['reason']
  /** The edited call's run is owned by another agent. */
  | 'run_owned_by_other_agent'
  /** The edited proposal's id, its (run, call) or the new request id is already taken. */
  | 'conflict'
  /** The parts do not describe one edit of this request (ids not linked, another call, a deny as approval). */
  | 'invalid_edit';

export type RecordEditResult =
  | {
      ok: true;
      /** The original request, now `edited`, closed by the deny naming the edit. */
      original: ApprovalRequest;
      proposal: Proposal;
      /** The edited call's request: pending, or approved if the editor's approval completed it. */
      request: ApprovalRequest;
    }
  /** Nothing was written: no edited proposal, no edited request, the original unchanged. */
  | { ok: false; reason: EditRefusal };

export type RecordResultOutcome =
  | { ok: true; created: boolean; result: ResultRecord }
  /** No such proposal, or it was never dispatched (still `proposed`): nothing was recorded. */
  | { ok: false; reason: 'not_found' | 'not_dispatched' }
  /** Another result was recorded first; it stands and is returned. */
  | { ok: false; reason: 'conflict'; existing: ResultRecord };

/** What a hosted tool's output records (`LedgerStore.recordProviderOutput`): its digest, stored as a succeeded result, and when. */
export interface ProviderOutputRecord {
  /** SHA-256 (hex, 64 lowercase characters) of the output's RFC 8785 JSON. */
  resultDigest: string;
  at: number;
}

export type RecordProviderOutputOutcome =
  /**
   * `created`: this write stored the output; `dispatched`: it also marked the call run (it
   * was still `proposed`), so the call's `dispatch` record belongs to this write too.
   * `proposal`: the call as it reads after the write.
   */
  | { ok: true; created: boolean; dispatched: boolean; proposal: Proposal }
  /** No such call, or a call the provider did not run: nothing was recorded. */
  | { ok: false; reason: 'not_found' }
  /** Another output was recorded first; it stands and is returned. */
  | { ok: false; reason: 'conflict'; existing: ResultRecord };

export type ConsumeFailure =
  | 'not_found'
  | 'not_approved'
  | 'already_consumed'
  | 'expired'
  | 'revoked'
  | 'token_mismatch';

export type ConsumeResult = { ok: true; proposal: Proposal } | { ok: false; reason: ConsumeFailure };

export interface ConsumeInput {
  proposalId: string;
  /** For calls that needed approval: the request and the token id (`jti`) presented. */
  approval?: { requestId: string; tokenId: string } | undefined;
  now: number;
}

/** Who is asking for a listing: enough to apply `eligibleUnder` to every request. */
export interface EligibilityFilter {
  approverId: string;
  roles: readonly string[];
  /** Every principal this approver is, their own id included. */
  principals: readonly string[];
}

export interface ListRequestsFilter {
  status?: ApprovalStatus | undefined;
  limit?: number | undefined;
  /**
   * Only requests this person may decide (`eligibleUnder` against the request's rule and
   * its call's principal), filtered in the store before `limit`, so any number of other
   * requests cannot push an eligible one out of the page.
   */
  eligibleFor?: EligibilityFilter | undefined;
}

/**
 * The audit events a ledger write appends in its own transaction, built from the
 * write's outcome (return none for an outcome that changed nothing). It runs inside
 * the transaction: it must be synchronous, fast and free of I/O. If it throws, or an
 * event it returns is invalid, the whole write is rolled back and the call rejects.
 */
export type AuditFor<R> = (outcome: R) => readonly AuditEvent[];

/**
 * Audit events built BEFORE the write, from what is known before it: appended in the
 * write's transaction if and only if the write takes effect (consume: `ok`; recordResult:
 * `created`), and none otherwise. Unlike `AuditFor`, nothing waits for the outcome, so a
 * SQL store can send the records with the write and its COMMIT in one round trip; the
 * store decides "took effect" in the same transaction (see `consumeWritten`, `resultWritten`).
 */
export interface AuditIfWritten {
  readonly ifWritten: readonly AuditEvent[];
}

/** How a write that may take no effect (consume, recordResult) is told its records. */
export type WriteAudit<R> = AuditFor<R> | AuditIfWritten;

/** The statuses an accepted decision can leave its request in (`statusAfterDecision`). */
export type StatusAfterDecision = 'pending' | 'approved' | 'denied';

/**
 * A decision's audit events built BEFORE the write, one list for each status the decision
 * can leave the request in (an approval: `pending` and `approved`; a deny: `denied`). The
 * store appends, in the write's transaction, the list of the status it wrote, and none
 * when the decision is refused. So a SQL store sends them with the write and its COMMIT
 * in one round trip, the status (n of m) decided in the same transaction as the write. A
 * list missing for a status the decision can lead to is refused before anything is
 * written (`LedgerError('invalid_input')`): a decision never lands without its records.
 */
export interface AuditByStatus {
  readonly byStatus: Readonly<Partial<Record<StatusAfterDecision, readonly AuditEvent[]>>>;
}

/** How `addDecision` is told its records. */
export type DecisionAudit = AuditFor<AddDecisionResult> | AuditByStatus;

export interface RecordProposalOptions {
  /** Opened in the same transaction, for the proposal this call creates (not for an idempotent repeat). */
  request?: Omit<NewApprovalRequest, 'proposalId'> | undefined;
  /**
   * Appended in the same transaction (needs `auditLog`, see LedgerStore). Given as
   * `AuditIfWritten`, they are appended exactly when the call is created (`proposalWritten`).
   */
  audit?: WriteAudit<RecordProposalResult> | undefined;
  /**
   * The single-use step of a call that needs no approval, taken in the same transaction:
   * a call this write creates is stored already consumed (`dispatched`, `dispatchedAt` =
   * this time), exactly as `consume` without `approval` would leave it, so it can never be
   * consumed again. A call that was already recorded (`created: false`) is left as it is.
   * Never with `request`: a call that waits for a person is not consumed before it is
   * approved (the store throws `LedgerError('invalid_input')`).
   */
  consumedAt?: number | undefined;
}

/** An approval request and the call it is about, as `LedgerStore.getRequestWithProposal` reads them. */
export interface RequestWithProposal {
  request: ApprovalRequest;
  proposal: Proposal;
}

/** A call as `LedgerStore.getProposalWithRequest` reads it. */
export interface ProposalWithRequest {
  proposal: Proposal;
  request: ApprovalRequest | undefined;
}

export interface LedgerStore {
  /**
   * Present when this ledger's writes can append audit events to `auditLog`'s chain
   * in the SAME transaction (a store holding both on one connection): a write given
   * `audit` commits its ledger change and its records together or not at all. The
   * gate passes `audit` only when its audit log is this one (or wraps it); with an
   * unrelated audit log it writes the ledger, then appends, in two steps, and a crash
   * between the two can leave a ledger change without its record.
   */
  readonly auditLog?: AuditLog | undefined;
  /**
   * Records a proposal. The first proposal of a run makes `input.agent` the run's
   * owner, in the same atomic step (of concurrent first proposals by different agents,
   * exactly one wins); a proposal by any other agent in that run is refused with
   * `run_owned_by_other_agent` before anything else is compared, and changes nothing.
   * (runId, callId) is unique: recording the same call again with the same tool,
   * arguments, principal and session is idempotent (`created: false`); anything
   * different is a `conflict` and changes nothing. With `options.consumedAt`, a created
   * call is recorded consumed in the same transaction (see `RecordProposalOptions`).
   */
  recordProposal(input: ProposalInput, options?: RecordProposalOptions): Promise<RecordProposalResult>;
  /** The agent that owns the run (recorded its first call), or undefined for an unknown run. */
  getRunOwner(runId: string): Promise<string | undefined>;
  getProposal(proposalId: string): Promise<Proposal | undefined>;
  /**
   * The proposal with its approval request (undefined when it has none), in ONE read:
   * what complete (and authorize, for an approval) check a call against. Undefined for
   * an unknown proposal. As consistent as the two single reads, never less: SQL stores
   * answer from one statement (one snapshot).
   */
  getProposalWithRequest(proposalId: string): Promise<ProposalWithRequest | undefined>;
  findProposalByCall(runId: string, callId: string): Promise<Proposal | undefined>;
  /**
   * The oldest call of the run not yet dispatched with exactly this tool and argument
   * digest (ties: the smaller proposal id). How a runtime that knows no call id (an MCP
   * `tools/call`) finds the recorded model call it must match (CASA checks 3 and 4).
   * A call the provider ran (`executedBy: 'provider'`) is never authorized, so it comes
   * after every other open call: it must not shadow the runtime's own call of the same
   * tool and arguments, and is returned only when it is the sole match (so the gate
   * still answers `provider_executed`, not `unknown_call`).
   */
  findOpenCall(runId: string, toolName: string, argsDigest: string): Promise<Proposal | undefined>;
  /**
   * Records that an integration refused this call, never run, with a refusal whose text has
   * SHA-256 `textDigest` (the MCP gateway's "Countersign refused …" result): a runtime that
   * relays that exact refusal back to the model is recognised by the ledger, never by the
   * text's format (`checkRelayed`). Idempotent. Optional: a store without it records none,
   * and such a relayed refusal is refused as `not_executed` (deny by default).
   */
  recordCallRefusal?(proposalId: string, textDigest: string, at: number): Promise<void>;
  /** Whether `recordCallRefusal` recorded this refusal text for this call. */
  hasCallRefusal?(proposalId: string, textDigest: string): Promise<boolean>;

  /** Opens an approval request for a proposal. At most one request per proposal. */
  createApprovalRequest(input: NewApprovalRequest): Promise<ApprovalRequest>;
  getApprovalRequest(requestId: string): Promise<ApprovalRequest | undefined>;
  /**
   * The request with the call it is about, in ONE read (what an agent fetching its token
   * and an approver viewing a request are shown). Undefined for an unknown request. As
   * consistent as the two single reads, never less: SQL stores answer from one statement
   * (one snapshot).
   */
  getRequestWithProposal(requestId: string): Promise<RequestWithProposal | undefined>;
  findApprovalRequestByProposal(proposalId: string): Promise<ApprovalRequest | undefined>;
  /** Newest first. Status filtering uses the effective status at `now`. */
  listApprovalRequests(filter: ListRequestsFilter, now: number): Promise<ApprovalRequest[]>;

  /**
   * Atomically appends one decision to a pending, unexpired request.
   * A deny moves it to `denied`. When distinct approvals reach `requiredApprovals`
   * it moves to `approved` and stores `tokenIdIfApproved` and `approvedAt = now`.
   * One approver decides a request at most once.
   * `opts.audit`: records committed in the same transaction (the signed decision record
   * and `token_minted`), so a decision never takes effect without its record. Given as
   * `AuditByStatus`, the list of the status the decision left the request in.
   */
  addDecision(
    requestId: string,
    decision: Decision,
    opts: { now: number; tokenIdIfApproved: string; audit?: DecisionAudit | undefined },
  ): Promise<AddDecisionResult>;

  /**
   * Approve-with-edits, one atomic operation: closes the original request with
   * `input.original.decision` (a deny naming the edit), records the edited proposal,
   * opens its request and adds `editorApproval` to it; all of it or nothing. Refused
   * (nothing written) when the original is not pending (`already_decided`, `expired`),
   * when the edit does not match the original call (`invalid_edit`), when an id is
   * taken (`conflict`) or the run belongs to another agent. Of concurrent edits (or
   * decisions) of one request, exactly one takes effect.
   * `audit`: records committed in the same transaction (the edited call's proposal, the
   * closing deny, the editor's approval), so an edit never takes effect without them.
   */
  recordEdit(input: EditInput, audit?: AuditFor<RecordEditResult>): Promise<RecordEditResult>;

  /**
   * Takes back one approver's own approval of a request that is still pending and
   * unexpired (n of m, before the n-th): their decision is removed, the request stays
   * pending and the approver may decide again. One atomic step with `addDecision`: of a
   * withdrawal and a concurrent approval that would complete the request, exactly one
   * order takes effect (approved first: the withdrawal is refused `already_decided`;
   * withdrawn first: the approval counts without the withdrawn one).
   * `audit`: records committed in the same transaction (the `withdrawal` record).
   */
  withdrawApproval(requestId: string, approver: string, now: number, audit?: AuditFor<WithdrawApprovalResult>): Promise<WithdrawApprovalResult>;

  /** Withdraws an approval that has not been consumed (pending or approved → revoked). */
  revokeApproval(requestId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean>;

  /**
   * The single-use step (invariant 5), one atomic operation:
   * - without `approval`: the proposal moves `proposed → dispatched`;
   * - with `approval`: additionally the request must be `approved`, unexpired at
   *   `now`, and hold exactly `tokenId`; it moves to `consumed`.
   * Of any number of concurrent calls for one proposal, at most one returns ok.
   * `audit`: records committed in the same transaction (the gate's `dispatch` record),
   * so a spent approval never exists without its record; see `auditLog`. Given as
   * `AuditIfWritten`, they are appended exactly when the result is `ok`.
   */
  consume(input: ConsumeInput, audit?: WriteAudit<ConsumeResult>): Promise<ConsumeResult>;

  /**
   * Stores the digest of what the tool returned, once: one atomic compare-and-set on a
   * dispatched call without a result. Recording the same status and digest again is
   * idempotent (`created: false`); anything else is a `conflict` that changes nothing
   * (the first result stands). Of concurrent calls with different results exactly one
   * returns `created: true`.
   * `audit`: records committed in the same transaction (the gate's `result` record).
   * Given as `AuditIfWritten`, they are appended exactly when the result is `created`.
   */
  recordResult(proposalId: string, result: ResultRecord, audit?: WriteAudit<RecordResultOutcome>): Promise<RecordResultOutcome>;

  /**
   * Records the output of a hosted tool the provider ran (`executedBy: 'provider'`) as the
   * call's succeeded result, and marks a call still `proposed` run (`dispatched`, no
   * approval: none can precede a call that already ran), in ONE atomic write: the call
   * is never marked run without its output, nor the reverse. Write-once like
   * `recordResult`: the same digest again is `created: false`, another is a `conflict`
   * (the first stands). Any other call is `not_found`. A malformed digest or time is
   * refused with `LedgerError('invalid_input')` before anything is written.
   * `audit`: records committed in the same transaction (the gate's `dispatch` record when
   * `dispatched`, its `result` record when `created`).
   */
  recordProviderOutput(proposalId: string, output: ProviderOutputRecord, audit?: AuditFor<RecordProviderOutputOutcome>): Promise<RecordProviderOutputOutcome>;

  /**
   * A cheap reachability check for readiness probes: resolves when the store can serve
   * reads and writes now, throws (LedgerError `store_unavailable`) when it cannot. Reads
   * and writes nothing. Optional: without it, a probe falls back to a lookup.
   */
  ping?(): Promise<void>;

  /** Releases connections/handles. */
  close?(): Promise<void>;
}
