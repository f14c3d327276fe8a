import { AUDIT_RECORD_FORMAT } from '../../audit/record-format.ts';
import type { AuditEvent, AuditValue } from '../../audit/types.ts';
import { ASK, resolveInMemory } from '../../catalog/static-catalog.ts';
import type { CatalogEntry } from '../../catalog/types.ts';
import { type CanonicalArguments, canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import { CanonicalizationError } from '../../canonical/errors.ts';
import type { ApprovalRequest, NewApprovalRequest, Proposal, ProposalInput, RecordProposalResult } from '../../ledger/types.ts';
import { tightenByAnnotations } from '../../policy/annotations.ts';
import { askPolicyNow } from '../../policy/ask-policy.ts';
import type { PolicyInput, Verdict } from '../../policy/types.ts';
import { emit } from '../../events/emit.ts';
import { addRequestDetail, callIds, errorMessage, eventAbout, requestDetail } from '../common/call-records.ts';
import { type Agent, DEFAULT_AGENT, mayActFor } from '../common/agent.ts';
import { admitDefinition, admittedWithoutStore } from '../definitions/admit-definition.ts';
import { editedCallOf } from '../approvals/edited-call.ts';
import { auditBestEffort } from '../common/audit-safely.ts';
import { auditedWriteIfWritten } from '../common/audited-write.ts';
import { openedRequestOf, recordedProposalOf } from '../../ledger/as-recorded.ts';
import { proposalWritten } from '../../ledger/audit-if-written.ts';
import { contextProblem, idProblem } from '../../call-ids.ts';
import type { GateDeps } from '../config.ts';
import { REVIEW_RUN_PREFIX } from '../definitions/definition-review.ts';
import type { ProposeOutcome } from '../common/outcomes.ts';
import { checkIntent, intentAuditValue, MAX_OFFERS, MAX_TASK_LENGTH } from '../intent/intent-stage.ts';
import type { IntentRecord } from '../intent/types.ts';
import { mayUseTool } from '../common/tool-scope.ts';
import { settleLostProposal, settleLostRequest } from './lost-proposal.ts';
import { dispatchEvent } from '../execute/dispatch-event.ts';
import { issueGrant } from '../execute/issued-grants.ts';
import { forgetRecordedCall, rememberRecordedCall } from '../common/recorded-calls.ts';

/** A tool call exactly as the model produced it. */
export interface ModelToolCall {
  runId: string;
  sessionId: string;
  principal: string;
  callId: string;
  toolName: string;
  /** Raw JSON text (OpenAI-style) or an already-parsed object (AI SDK style). */
  arguments: unknown;
  /** Model response id or similar, kept with the proposal. */
  responseRef?: string | undefined;
  /**
   * What the agent says about the call, for the approver (at most
   * `MAX_PROPOSAL_CONTEXT_LENGTH` characters). Untrusted: shown as the agent's words,
   * never part of what is approved, signed or run.
   */
  context?: string | undefined;
  /**
   * The user's current task (one sentence, extracted agent- or proxy-side) for the
   * optional intent stage, or `taskId`, a stored task summary's id. Only its digest is
   * audited; the raw conversation never has to reach the gate.
   */
  task?: string | undefined;
  taskId?: string | undefined;
  /** The assistant's offers the user only accepted, passed to the matcher with `task` (never audited in clear). */
  offered?: readonly string[] | undefined;
  /**
   * `provider`: a hosted tool the provider already ran (see `ProposalInput.executedBy`).
   * Recorded and decided by policy like any call; authorize refuses it (`provider_executed`).
   */
  executedBy?: 'provider' | undefined;
  /**
   * Propose-and-authorize: when policy allows the call outright, record it already
   * authorized, in the same write, and answer `allowed` with the grant (see
   * `consumesOnRecord` for when). Any other verdict is answered exactly as without it.
   */
  authorizeAllowed?: boolean | undefined;
}

/**
 * Records the model's call in the ledger (the server's own copy from now on), asks
 * policy for a verdict and, for `approve`, opens an approval request. `agent` is who
 * records it: the call's run must be this agent's (or new), and the agent must be
 * allowed to act for the call's principal. Never throws.
 */
export async function propose(deps: GateDeps, call: ModelToolCall, agent: Agent = DEFAULT_AGENT): Promise<ProposeOutcome> {
  const preparing = prepareProposal(deps, call, agent);
  const prepared = preparing instanceof Promise ? await preparing : preparing;
  if ('outcome' in prepared) return prepared.outcome;
  return finishProposal(deps, prepared, await startWrite(deps, prepared));
}

/**
 * `propose` for every tool call of one model response, one outcome per call, in order.
 * Each call is checked, admitted and decided in the model's order; then the ledger
 * writes of all of them are submitted together, so a store that group-commits (SQLite,
 * Postgres) records the whole response in one transaction (one durable commit). Each
 * call keeps its own outcome: a conflicting call does not undo the others. Never throws.
 */
export async function proposeResponse(deps: GateDeps, calls: readonly ModelToolCall[], agent: Agent = DEFAULT_AGENT): Promise<ProposeOutcome[]> {
  const prepared: Prepared[] = [];
  for (const call of calls) {
    const p = prepareProposal(deps, call, agent);
    prepared.push(p instanceof Promise ? await p : p);
  }
  // Submitted in one turn of the event loop, in the model's order: the stores batch them.
  const writes = prepared.map((p) => ('outcome' in p ? undefined : startWrite(deps, p)));
  const outcomes: ProposeOutcome[] = [];
  // An index loop: entries() would allocate an iterator and a pair per call.
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    if ('outcome' in p) {
      outcomes.push(p.outcome);
      continue;
    }
    const finished = finishProposal(deps, p, await writes[i]!);
    outcomes.push(finished instanceof Promise ? await finished : finished);
  }
  return outcomes;
}

/** A call ready to be written: what the ledger records, and the verdict it was recorded under. */
interface PreparedCall {
  call: ModelToolCall;
  agent: Agent;
  argsDigest: string;
  verdict: Verdict;
  input: ProposalInput;
  request: Omit<NewApprovalRequest, 'proposalId'> | undefined;
  now: number;
  /** What the intent stage decided, when it ran (audited with the verdict). */
  intent: IntentRecord | undefined;
  /** Recorded consumed in the proposal's own write, answered with a grant (`consumesOnRecord`). */
  consumes: boolean;
}

type Prepared = PreparedCall | { outcome: ProposeOutcome };

/** The ledger write's outcome, or the error it failed with (never a rejected promise: writes run side by side). */
type Written = { ok: true; recorded: RecordProposalResult } | { ok: false; error: unknown };

/**
 * Everything before the ledger write: intake, definition admission and the policy verdict
 * (refusals are final outcomes). Without a promise in the common case — a code-registered
 * tool already admitted by this gate, a synchronous policy, no intent stage — so a call
 * reaches its write in the turn it arrived; anything that needs I/O takes the async path.
 */
function prepareProposal(deps: GateDeps, call: ModelToolCall, agent: Agent): Prepared | Promise<Prepared> {
  const invalid = invalidCallField(call) ?? invalidAgent(agent);
  if (invalid !== undefined) {
    // The ids are not valid ids, so the event carries none of them.
    emit(deps.events, { type: 'rejected', at: deps.clock(), stage: 'propose', reason: 'invalid_call' });
    return { outcome: { status: 'rejected', reason: 'invalid_call', message: invalid } };
  }
  if (!mayActFor(agent, call.principal)) {
    const outcome: ProposeOutcome = { status: 'rejected', reason: 'principal_not_allowed', message: `agent ${agent.id} may not act for ${call.principal}` };
    return auditRefusal(deps, call, agent, 'principal_not_allowed').then(() => ({ outcome }));
  }

  let args: CanonicalArguments;
  try {
    args = canonicalizeArguments(call.arguments, deps.argumentLimits);
  } catch (error) {
    const message = error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : String(error);
    const outcome: ProposeOutcome = { status: 'rejected', reason: 'invalid_arguments', message };
    return auditRefusal(deps, call, agent, 'invalid_arguments').then(() => ({ outcome }));
  }

  try {
    // Admitted without the store (admitDefinition would answer ok without I/O): decided now.
    const known = deps.intent === undefined ? resolveInMemory(deps.catalog, call.toolName) : ASK;
    if (known === undefined || (known !== ASK && admittedWithoutStore(deps, known))) {
      const now = deps.clock();
      const decided = askPolicyNow(deps.policy, policyInput(call, args, known));
      if (!(decided instanceof Promise)) return readyCall(deps, call, agent, args, known, tightenByAnnotations(decided, known?.definition?.annotations), now, undefined);
      return decided.then(
        (verdict) => readyCall(deps, call, agent, args, known, tightenByAnnotations(verdict, known?.definition?.annotations), now, undefined),
        (error: unknown): Prepared => ({ outcome: storeUnavailable(deps, call, error) }),
      );
    }
  } catch (error) {
    return { outcome: storeUnavailable(deps, call, error) };
  }
  return prepareAfterLookups(deps, call, agent, args);
}

/** The async path of `prepareProposal`: the catalogue, the definition's pin and the intent stage may need I/O. */
async function prepareAfterLookups(deps: GateDeps, call: ModelToolCall, agent: Agent, args: CanonicalArguments): Promise<Prepared> {
  try {
    const entry = await deps.catalog.resolve(call.toolName);
    // A tool another agent registered is not this agent's to call (unless shared): refused
    // as the unknown tool it is to this agent, before anything is recorded or approved.
    if (entry !== undefined && !mayUseTool(deps, entry, agent.id)) {
      await auditRefusal(deps, call, agent, 'unknown_tool', args.digest);
      return { outcome: { status: 'denied', reason: 'unknown_tool', message: `no tool named ${call.toolName} is registered` } };
    }
    // A call under a definition that is not the trusted one is refused before it is recorded (invariant 9).
    const admitted = entry === undefined ? { ok: true as const } : await admitDefinition(deps, entry);
    if (!admitted.ok) {
      await auditRefusal(deps, call, agent, admitted.reason, args.digest, entry?.definitionDigest);
      return { outcome: { status: 'rejected', reason: admitted.reason, message: admitted.message, reviewRequestId: admitted.reviewRequestId } };
    }
    const now = deps.clock();
    // Policy first, so the proposal, its approval request and and their one record commit as one.
    const deciding = askPolicyNow(deps.policy, policyInput(call, args, entry));
    const decided = deciding instanceof Promise ? await deciding : deciding;
    // The admitted (pinned) definition's annotations may only tighten the verdict.
    const tightened = tightenByAnnotations(decided, entry?.definition?.annotations);
    // The intent stage, after policy: it may deny or route to a person, never allow. A
    // denied call is not recorded, so no later authorize (which does not ask the
    // matcher again) can find it allowed by policy alone.
    // The matcher ranks only against tools this agent may use: never another agent's registered tools.
    const step = await checkIntent(deps.intent, deps.catalog, call, entry, tightened, now, (t) => mayUseTool(deps, t, agent.id));
    if (step.kind === 'deny') {
      await auditRefusal(deps, call, agent, 'intent_mismatch', args.digest, entry?.definitionDigest, step.record);
      return { outcome: { status: 'denied', reason: 'intent_mismatch', message: step.message } };
    }
    return readyCall(deps, call, agent, args, entry, step.verdict, now, step.record);
  } catch (error) {
    return { outcome: storeUnavailable(deps, call, error) };
  }
}

function policyInput(call: ModelToolCall, args: CanonicalArguments, entry: CatalogEntry | undefined): PolicyInput {
  return {
    toolName: call.toolName,
    args: args.value,
    principal: call.principal,
    runId: call.runId,
    sessionId: call.sessionId,
    definitionDigest: entry?.definitionDigest,
  };
}

/**
 * An admitted, decided call: what the ledger records, and the approval request a verdict of
 * `approve` opens. A call the provider already ran cannot wait for a person: policy asking
 * for approval refuses it (`provider_executed`, audited, not recorded), so no approval
 * request is ever opened that nothing could follow.
 */
function readyCall(
  deps: GateDeps,
  call: ModelToolCall,
  agent: Agent,
  args: CanonicalArguments,
  entry: CatalogEntry | undefined,
  verdict: Verdict,
  now: number,
  intent: IntentRecord | undefined,
): Prepared | Promise<Prepared> {
  if (call.executedBy === 'provider' && verdict.kind === 'approve') {
    const message = `${call.toolName} is a hosted tool the provider already ran; policy asks a person to approve it, which cannot happen before it runs (allow it, deny it, or do not offer it)`;
    return auditRefusal(deps, call, agent, 'provider_executed', args.digest, entry?.definitionDigest, intent).then(() => ({
      outcome: { status: 'denied', reason: 'provider_executed', message },
    }));
  }
  try {
    const input: ProposalInput = {
      proposalId: deps.newId(),
      runId: call.runId,
      sessionId: call.sessionId,
      principal: call.principal,
      agent: agent.id,
      callId: call.callId,
      toolName: call.toolName,
      definitionDigest: entry?.definitionDigest,
      canonicalArgs: args.canonical,
      argsDigest: args.digest,
      responseRef: call.responseRef,
      ...(call.context === undefined ? {} : { context: call.context }),
      ...(call.executedBy === 'provider' ? { executedBy: 'provider' as const } : {}),
      createdAt: now,
    };
    const request = verdict.kind === 'approve' ? newRequest(deps, verdict, now) : undefined;
    const consumes = call.authorizeAllowed === true && consumesOnRecord(deps, call, agent, entry, verdict);
    return { call, agent, argsDigest: args.digest, verdict, input, request, now, intent, consumes };
  } catch (error) {
    return { outcome: storeUnavailable(deps, call, error) };
  }
}

/**
 * Whether an allowed call may be recorded already authorized: every check `authorize` makes
 * of an allowed call is the one propose has just made, at the same instant, on the same
 * call (principal, run ownership in the write, canonical arguments and their digest,
 * definition admitted, policy verdict, the intent stage), except the ones this adds: a
 * registered tool this agent may use (authorize refuses any other as `unknown_tool`) and a
 * call the runtime runs, not the provider (`provider_executed`). Only a plain `allow`: a
 * call policy (or the intent stage, or a destructive annotation) sends to a person has its
 * request opened instead, and one denied is never recorded consumed.
 */
function consumesOnRecord(deps: GateDeps, call: ModelToolCall, agent: Agent, entry: CatalogEntry | undefined, verdict: Verdict): boolean {
  return verdict.kind === 'allow' && entry !== undefined && call.executedBy !== 'provider' && mayUseTool(deps, entry, agent.id);
}

/**
 * Starts the ledger write (with its records in the same transaction when the store holds
 * both). The records of a new call are built before the write, from the call as it will
 * be recorded (a created call is exactly the input, see `recordedProposalOf`), and go
 * with it, appended only if the write creates the call: a SQL store sends them with the
 * insert and its COMMIT, nothing waiting for the insert's answer (Postgres: one round
 * trip). A call already recorded (a repeat, a conflict, another agent's run) appends none.
 */
function startWrite(deps: GateDeps, p: PreparedCall): Promise<Written> {
  try {
    const options = p.consumes ? { consumedAt: p.now } : { request: p.request };
    const proposal = recordedProposalOf(p.input, p.consumes ? p.now : undefined);
    const request = p.request === undefined ? undefined : openedRequestOf({ ...p.request, proposalId: p.input.proposalId });
    return auditedWriteIfWritten<RecordProposalResult>(
      deps,
      (audit) => deps.ledger.recordProposal(p.input, { ...options, audit }),
      recordsOfNewCall(proposal, p.verdict, request, p.now, p.intent),
      proposalWritten,
    ).then(
      (recorded): Written => ({ ok: true, recorded }),
      (error: unknown): Written => ({ ok: false, error }),
    );
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
}

/**
 * Everything after the ledger write: refusals it reported, events, and the outcome for the
 * verdict. Without a promise for a newly recorded call (the common case); a refusal, or an
 * approve verdict that must read or open its request, takes the async path.
 */
function finishProposal(deps: GateDeps, p: PreparedCall, written: Written): ProposeOutcome | Promise<ProposeOutcome> {
  const { call, now } = p;
  try {
    if (!written.ok) return finishLostWrite(deps, p, written.error);
    const recorded = written.recorded;
    if (!recorded.ok) return finishRefused(deps, p, recorded).catch((error: unknown) => storeUnavailable(deps, call, error));
    const proposal = recorded.proposal;
    if (recorded.created) emit(deps.events, { type: 'proposed', at: now, verdict: p.verdict.kind, ...callIds(proposal) });
    holdForAuthorize(deps, p, recorded);
    if (recorded.request !== undefined) {
      const opened = recorded.request;
      emit(deps.events, { type: 'approval_requested', at: now, requestId: opened.requestId, expiresAt: opened.expiresAt, ...callIds(proposal) });
      const ids = { proposalId: proposal.proposalId, callId: proposal.callId, argsDigest: proposal.argsDigest };
      return { status: 'approval_required', ...ids, requestId: opened.requestId, expiresAt: opened.expiresAt };
    }
    if (p.verdict.kind === 'approve') {
      return approvalOutcome(deps, proposal, p.verdict, now).catch((error: unknown) => storeUnavailable(deps, call, error));
    }
    if (p.consumes && recorded.created && proposal.state === 'dispatched') return authorizedOutcome(deps, proposal, now);
    return decidedOutcome(proposal, p.verdict);
  } catch (error) {
    return storeUnavailable(deps, call, error);
  }
}

/**
 * An allowed call this write created, still `proposed`, is held for this gate's authorize of
 * it (recorded-calls.ts); a call proposed again is read from the ledger from then on.
 * Not with an intent stage: the request it routes a call to is the one thing an allowed
 * call's authorize reads from the ledger that can appear after the call is recorded (the
 * same call proposed again on another replica, the stage answering otherwise), and a
 * forget here cannot reach the other replica's gate.
 */
function holdForAuthorize(deps: GateDeps, p: PreparedCall, recorded: Extract<RecordProposalResult, { ok: true }>): void {
  const proposal = recorded.proposal;
  if (!recorded.created) forgetRecordedCall(deps, proposal.proposalId);
  else if (
    deps.intent === undefined &&
    p.verdict.kind === 'allow' &&
    proposal.state === 'proposed' &&
    recorded.request === undefined &&
    proposal.executedBy === undefined
  ) {
    rememberRecordedCall(deps, proposal);
  }
}

/**
 * The proposal write threw: its reply may be lost after COMMIT, so the store is read again
 * before anything is said (invariant 6). A call the store shows is answered as recorded;
 * one it does not show is `store_unavailable`; a store that cannot be read is
 * `outcome_unknown`, never a failure for a call that may be recorded.
 */
async function finishLostWrite(deps: GateDeps, p: PreparedCall, error: unknown): Promise<ProposeOutcome> {
  const settled = await settleLostProposal(deps, p.input, p.request !== undefined, error);
  if (settled.settled === 'not_written') return storeUnavailable(deps, p.call, error);
  if (settled.settled === 'unknown') return outcomeUnknown(deps, p.call, settled.message);
  return finishProposal(deps, p, { ok: true, recorded: settled.value });
}

/** The ledger refused the write: another agent's run, or the same call id with other content. */
async function finishRefused(deps: GateDeps, p: PreparedCall, recorded: Extract<RecordProposalResult, { ok: false }>): Promise<ProposeOutcome> {
  const { call, agent, now } = p;
  if (recorded.reason === 'run_owned_by_other_agent') {
    await auditRefusal(deps, call, agent, 'run_owned_by_other_agent', p.argsDigest);
    return {
      status: 'rejected',
      reason: 'run_owned_by_other_agent',
      message: `run ${call.runId} was started by another agent; use a new run id`,
    };
  }
  await auditBestEffort(deps.audit, {
    ...eventAbout(recorded.existing, 'rejection', now),
    argsDigest: p.argsDigest,
    reason: 'call_conflict',
  });
  emit(deps.events, { type: 'rejected', at: now, stage: 'propose', reason: 'call_conflict', ...callIds(recorded.existing) });
  return {
    status: 'rejected',
    reason: 'call_conflict',
    message: `call ${call.callId} was already recorded in run ${call.runId} with different content`,
  };
}

/** Nothing could be recorded, so there is no audit record; the event still tells operators (metrics, logs). */
function storeUnavailable(deps: GateDeps, call: ModelToolCall, error: unknown): ProposeOutcome {
  emit(deps.events, { type: 'rejected', at: deps.clock(), stage: 'propose', reason: 'store_unavailable', runId: call.runId, callId: call.callId, toolName: call.toolName });
  return { status: 'rejected', reason: 'store_unavailable', message: `ledger or audit store failed: ${errorMessage(error)}` };
}

/** The store failed while recording and could not say whether it did: not a failure (the call may be recorded). */
function outcomeUnknown(deps: GateDeps, call: ModelToolCall, message: string): ProposeOutcome {
  emit(deps.events, { type: 'rejected', at: deps.clock(), stage: 'propose', reason: 'outcome_unknown', runId: call.runId, callId: call.callId, toolName: call.toolName });
  return { status: 'rejected', reason: 'outcome_unknown', message };
}

/**
 * An allowed call this propose recorded consumed: the grant, as `authorize` would have
 * issued it for this call (created by this write, so no other caller holds one). A call
 * that was already recorded is answered `allowed` without a grant: `authorize` it, which
 * refuses one consumed before (`already_consumed`).
 */
function authorizedOutcome(deps: GateDeps, proposal: Proposal, now: number): ProposeOutcome {
  const { runId, proposalId, callId, toolName } = proposal;
  emit(deps.events, { type: 'authorized', at: now, requestId: undefined, runId, proposalId, callId, toolName });
  return { status: 'allowed', proposalId, callId, argsDigest: proposal.argsDigest, grant: issueGrant(deps, proposal, undefined) };
}

/** The outcome of an allow or deny verdict on a recorded call. */
function decidedOutcome(proposal: Proposal, verdict: Exclude<Verdict, { kind: 'approve' }>): ProposeOutcome {
  if (verdict.kind === 'allow') return { status: 'allowed', proposalId: proposal.proposalId, callId: proposal.callId, argsDigest: proposal.argsDigest };
  return { status: 'denied', reason: verdict.reason, message: `policy denies ${proposal.toolName}`, proposalId: proposal.proposalId };
}

/** An approve verdict on a call recorded without its request opened in the same write (proposed again, or an older call). */
async function approvalOutcome(deps: GateDeps, proposal: Proposal, verdict: Extract<Verdict, { kind: 'approve' }>, now: number): Promise<ProposeOutcome> {
  const ids = { proposalId: proposal.proposalId, callId: proposal.callId, argsDigest: proposal.argsDigest };
  const existing = await deps.ledger.findApprovalRequestByProposal(proposal.proposalId);
  if (existing !== undefined) {
    // Proposed again after an approver edited it: say which call runs instead.
    const edited = existing.status === 'edited' ? await editedCallOf(deps, existing) : undefined;
    const target = edited?.requestId === undefined ? {} : { edited: { proposalId: edited.proposalId, requestId: edited.requestId, callId: edited.callId } };
    return { status: 'approval_required', ...ids, requestId: existing.requestId, expiresAt: existing.expiresAt, ...target };
  }
  // A call recorded earlier without a request (policy changed since, or a ledger that
  // does not open requests with proposals): opened now, as its own write.
  let request: ApprovalRequest;
  try {
    request = await deps.ledger.createApprovalRequest({ ...newRequest(deps, verdict, now), proposalId: proposal.proposalId });
  } catch (error) {
    // Its reply may be lost after COMMIT: the request the store shows is the one to wait for.
    const settled = await settleLostRequest(deps, proposal, error);
    if (settled.settled === 'not_written') throw error;
    if (settled.settled === 'unknown') return { status: 'rejected', reason: 'outcome_unknown', message: settled.message };
    request = settled.value;
  }
  emit(deps.events, { type: 'approval_requested', at: now, requestId: request.requestId, expiresAt: request.expiresAt, ...callIds(proposal) });
  await deps.audit.append(approvalRequestedEvent(proposal, request, now));
  return { status: 'approval_required', ...ids, requestId: request.requestId, expiresAt: request.expiresAt };
}

/** The approval request a verdict of `approve` opens, without its proposal id. */
function newRequest(deps: GateDeps, verdict: Extract<Verdict, { kind: 'approve' }>, now: number): Omit<NewApprovalRequest, 'proposalId'> {
  return {
    requestId: deps.newId(),
    createdAt: now,
    expiresAt: now + verdict.approval.ttlSeconds * 1000,
    requiredApprovals: verdict.approval.requiredApprovals,
    eligible: verdict.approval.eligible,
    ruleId: verdict.ruleId,
    ...(verdict.approval.passkey === 'required' ? { passkey: 'required' as const } : {}),
    ...ruleDescription(verdict),
  };
}

/** Why the approver is asked, in words: the rule's description, or the annotation that tightened an allow. */
function ruleDescription(verdict: Extract<Verdict, { kind: 'approve' }>): { ruleDescription?: string } {
  if (verdict.tightenedBy === 'destructiveHint') {
    return { ruleDescription: 'The rule allows this tool, but its pinned definition marks it destructive (destructiveHint), so each call needs approval.' };
  }
  if (verdict.tightenedBy === 'intent') {
    return { ruleDescription: "The intent check could not tell whether this tool serves the user's task, so a person decides." };
  }
  return verdict.description === undefined ? {} : { ruleDescription: verdict.description };
}

/**
 * What a newly recorded call appends: its proposal record and, when it was recorded
 * consumed (`authorizeAllowed`), the `dispatch` record authorize would have appended, in
 * the same transaction: two steps, one record each.
 */
function recordsOfNewCall(proposal: Proposal, verdict: Verdict, request: ApprovalRequest | undefined, now: number, intent?: IntentRecord): AuditEvent[] {
  const proposed = proposalEvent(proposal, verdict, request, now, intent);
  return proposal.state === 'dispatched' ? [proposed, dispatchEvent(proposal, now, undefined)] : [proposed];
}

/**
 * The one record of a newly recorded call (format 2): the proposal, the verdict it was
 * recorded under and, when one opened with it, the approval request.
 */
function proposalEvent(proposal: Proposal, verdict: Verdict, request: ApprovalRequest | undefined, now: number, intent?: IntentRecord): AuditEvent {
  // Built by assignment (every propose makes one).
  const event = eventAbout(proposal, 'proposal', now);
  const detail: { [key: string]: AuditValue } = { format: AUDIT_RECORD_FORMAT, agent: proposal.agent };
  if (proposal.responseRef !== undefined) detail.responseRef = proposal.responseRef;
  detail.verdict = verdict.kind;
  detail.ruleId = verdict.ruleId ?? null;
  if (verdict.kind === 'deny') event.reason = verdict.reason;
  else if (verdict.kind === 'approve' && verdict.tightenedBy !== undefined) detail.tightenedBy = verdict.tightenedBy;
  if (intent !== undefined) detail.intent = intentAuditValue(intent);
  if (request !== undefined) {
    event.requestId = request.requestId;
    addRequestDetail(detail, request);
  }
  event.detail = detail;
  return event;
}

/** A request opened after its call was recorded: its own record, as in format 1. */
function approvalRequestedEvent(proposal: Proposal, request: ApprovalRequest, now: number): AuditEvent {
  return { ...eventAbout(proposal, 'approval_requested', now), requestId: request.requestId, detail: requestDetail(request) };
}

/** Tells listeners about a call refused before it was recorded (its ids are valid by now). */
function emitRefusal(deps: GateDeps, call: ModelToolCall, reason: string): void {
  emit(deps.events, { type: 'rejected', at: deps.clock(), stage: 'propose', reason, runId: call.runId, callId: call.callId, toolName: call.toolName });
}

/** Audits a call refused before it was recorded; the refused agent goes in the detail. */
async function auditRefusal(
  deps: GateDeps,
  call: ModelToolCall,
  agent: Agent,
  reason: string,
  argsDigest?: string,
  definitionDigest?: string,
  intent?: IntentRecord,
): Promise<void> {
  emitRefusal(deps, call, reason);
  await auditBestEffort(deps.audit, {
    type: 'rejection',
    at: deps.clock(),
    runId: call.runId,
    sessionId: call.sessionId,
    callId: call.callId,
    toolName: call.toolName,
    argsDigest,
    actor: call.principal,
    reason,
    detail: {
      agent: agent.id,
      ...(definitionDigest === undefined ? {} : { definitionDigest }),
      ...(intent === undefined ? {} : { intent: intentAuditValue(intent) }),
    },
  });
}

function invalidAgent(agent: Agent): string | undefined {
  if (typeof agent !== 'object' || agent === null) return 'agent must be an object';
  const problem = idProblem('agent id', agent.id);
  if (problem !== undefined) return problem;
  if (agent.principals !== undefined && (!Array.isArray(agent.principals) || !agent.principals.every((p) => typeof p === 'string'))) {
    return 'agent principals must be a list of strings';
  }
  return undefined;
}

function invalidCallField(call: ModelToolCall): string | undefined {
  if (typeof call !== 'object' || call === null) return 'call must be an object';
  for (const field of ['runId', 'sessionId', 'principal', 'callId', 'toolName'] as const) {
    const problem = idProblem(field, call[field]);
    if (problem !== undefined) return problem;
  }
  if (call.runId.startsWith(REVIEW_RUN_PREFIX)) return `run ids starting with "${REVIEW_RUN_PREFIX}" are reserved`;
  return contextProblem(call.context) ?? invalidTask(call);
}

/** A task is one bounded sentence or a stored summary's id, never both. */
function invalidTask(call: ModelToolCall): string | undefined {
  if (call.task !== undefined && (typeof call.task !== 'string' || call.task.trim() === '' || call.task.length > MAX_TASK_LENGTH || !call.task.isWellFormed())) {
    return `task must be a non-empty, well-formed string of at most ${MAX_TASK_LENGTH} characters`;
  }
  if (call.taskId !== undefined) {
    const problem = idProblem('taskId', call.taskId);
    if (problem !== undefined) return problem;
    if (call.task !== undefined) return 'give task or taskId, not both';
  }
  const offered: unknown = call.offered;
  if (offered !== undefined && (!Array.isArray(offered) || offered.length > MAX_OFFERS || !offered.every((o) => typeof o === 'string' && o.length <= MAX_TASK_LENGTH && o.isWellFormed()))) {
    return `offered must be a list of at most ${MAX_OFFERS} well-formed strings of at most ${MAX_TASK_LENGTH} characters`;
  }
  return undefined;
}
