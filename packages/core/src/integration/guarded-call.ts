import type { AuthorizeOutcome, Completion, GatePort, Grant, WaitOutcome } from '../gate/index.ts';
import { CanonicalizationError, canonicalizeArguments } from '../canonical/index.ts';
import type { IndexedCall } from './call-index.ts';
import { type CompletionFailure, completeOrReport, issuedToken } from './grant-calls.ts';
import { directGateStep, type GateStep } from './gate-step.ts';
import type { CountersignReason, CountersignRefusalStatus, GuardedRefusal } from './refusal.ts';
import { settleUnknownOutcome, type UnknownOutcome } from './unknown-outcome.ts';
import { unreachable } from './unreachable.ts';

/** Run, session and principal of the agent run, from the app's own state. */
export interface GuardedContext {
  runId: string;
  sessionId: string;
  principal: string;
}

/**
 * What a runtime can vouch for of a call's context when it did not make the run: the MCP
 * gateway checking a recorded model call (CASA checks 3 and 4) knows the run and the
 * principal, not the agent's session. A field left out is not cross-checked at authorize.
 */
export type CheckedContext = Omit<GuardedContext, 'sessionId'> & { sessionId?: string | undefined };

/**
 * What the integration knows about the call at propose: this response's outcome (just
 * proposed in this process), the app's index entry (a resumed run), or nothing (a call
 * no model response of this run contained).
 */
export type RecordedCall = RefusedAtPropose | { status?: 'allowed' | 'approval_required' | undefined; proposalId: string; requestId?: string | undefined } | undefined;

/** A call propose refused: nothing of it may run. */
export interface RefusedAtPropose {
  status: 'denied' | 'rejected';
  reason: CountersignReason;
  message: string;
  proposalId?: string | undefined;
  /** A rejected call's definition review, when a person must decide one before the tool can run. */
  reviewRequestId?: string | undefined;
}

const refusedAtPropose = (recorded: NonNullable<RecordedCall>): recorded is RefusedAtPropose => recorded.status === 'denied' || recorded.status === 'rejected';

/** One tool call the framework is about to run, as the framework names it. */
export interface GuardedCallInput {
  context: CheckedContext;
  callId: string;
  toolName: string;
  /** The arguments the framework would run with: cross-checked against the ledger (CASA check 4). */
  arguments: unknown;
  recorded: RecordedCall;
}

/**
 * Where the call stands. `run`: authorize granted it, run `grant.canonicalArgs` (the
 * ledger's arguments; after an edit, the approver's) and then `finishCall`. `wait`: an
 * approver has not decided; wake with `port.waitForDecision(requestId)` and call
 * `guardCall` again. `refused`: nothing may run. `unknown`: the gate could not tell
 * whether authorize consumed the approval (`outcome_unknown`, see `UnknownOutcome`):
 * nothing runs here and the call must not be retried; show `refusal` (reason
 * `outcome_unknown`) and let the app read the call's status.
 */
export type GuardedStep =
  | { kind: 'run'; grant: Grant; edited: boolean }
  | { kind: 'wait'; requestId: string; proposalId: string }
  | { kind: 'refused'; refusal: GuardedRefusal }
  | UnknownOutcome;

/** Where the call's approval stands, edits followed (what a framework's "needs approval?" hook asks). */
export type ApprovalState =
  | { kind: 'approved'; target: Target }
  | { kind: 'wait'; requestId: string; proposalId: string }
  | { kind: 'refused'; refusal: GuardedRefusal };

/** The ledger call that runs for a framework's call: the model's own, or the approver's edited one. */
export interface Target {
  proposalId: string;
  requestId?: string | undefined;
  /** The edited call's ledger call id, when the approver edited the call. */
  editedCallId?: string | undefined;
}

export interface GuardOptions {
  /** How long to wait for an approver before answering `wait`; 0 (the default) does not wait. */
  waitMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** How each exchange with the gate is sent (see `GateStep`); by default, directly. */
  step?: GateStep | undefined;
}

export { directGateStep, type GateExchange, type GateStep } from './gate-step.ts';
export type { GuardedRefusal } from './refusal.ts';

/** An edit of an edit is possible; a longer chain is refused rather than followed forever. */
const MAX_EDIT_HOPS = 8;

const REQUEST_REFUSALS: Record<string, [CountersignRefusalStatus, CountersignReason, string]> = {
  pending: ['not_approved', 'approval_pending', 'approval request {id} has not been approved in Countersign'],
  denied: ['denied', 'approval_denied', 'approval request {id} was denied'],
  revoked: ['not_approved', 'approval_revoked', 'approval request {id} was revoked'],
  consumed: ['not_approved', 'already_consumed', 'approval request {id} was already used'],
  expired: ['not_approved', 'expired', 'approval request {id} expired'],
};

const refused = (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string) => ({
  kind: 'refused' as const,
  refusal: { status, reason, message, ...(proposalId === undefined ? {} : { proposalId }) },
});

/**
 * The first step of the one guarded-call state machine every integration uses: the
 * ledger call `recorded` names, its approval followed in Countersign. An approver's
 * edit is always followed (the edited call, with its own approval, is what runs; the
 * ledger links it to the model's call through `parentProposalId`). Never throws.
 */
export async function approvalState(port: GatePort, recorded: RecordedCall, context: CheckedContext, callId: string, options: GuardOptions = {}): Promise<ApprovalState> {
  if (recorded === undefined) return refused('not_approved', 'unknown_call', `no model response in run ${context.runId} contained call ${callId}`);
  if (refusedAtPropose(recorded)) return refused(recorded.status, recorded.reason, recorded.message, recorded.proposalId);
  const step = options.step ?? directGateStep;
  let target: Target = { proposalId: recorded.proposalId, requestId: recorded.requestId };
  for (let hop = 0; hop < MAX_EDIT_HOPS; hop++) {
    if (target.requestId === undefined) return { kind: 'approved', target };
    let waited: WaitOutcome;
    try {
      const requestId = target.requestId;
      waited = await step('decision', () => port.waitForDecision(requestId, { timeoutMs: options.waitMs ?? 0, signal: options.signal }));
    } catch (error) {
      return refused('not_approved', 'store_unavailable', unreachable(error), target.proposalId);
    }
    if (!waited.ok) return refused('not_approved', waited.reason === 'not_found' ? 'unknown_call' : 'store_unavailable', waited.message, target.proposalId);
    if (waited.status === 'approved') return { kind: 'approved', target };
    if (waited.status === 'pending') return { kind: 'wait', requestId: target.requestId, proposalId: target.proposalId };
    if (waited.status === 'edited') {
      if (waited.editedCallId === undefined) {
        return refused('not_approved', 'approval_edited', `approval request ${target.requestId} was edited, but the edited call is not named`, target.proposalId);
      }
      target = { proposalId: waited.editedProposalId, requestId: waited.editedRequestId, editedCallId: waited.editedCallId };
      continue;
    }
    const [status, reason, message] = REQUEST_REFUSALS[waited.status] ?? ['not_approved', 'approval_pending', `approval request {id} is ${waited.status}`];
    return refused(status, reason, message.replace('{id}', target.requestId), target.proposalId);
  }
  return refused('not_approved', 'approval_edited', `call ${callId} was edited too many times`, target.proposalId);
}

/**
 * The guarded-call state machine's decision for one call: run (with the grant), wait
 * (for an approver), or refused (typed). `authorize` is the check: the model's call is
 * cross-checked field for field (run, session, principal, call id, tool, arguments),
 * the approval consumed once. An edited call runs the approver's arguments under the
 * model's tool name. Never throws.
 */
export async function guardCall(port: GatePort, call: GuardedCallInput, options: GuardOptions = {}): Promise<GuardedStep> {
  const state = await approvalState(port, call.recorded, call.context, call.callId, options);
  if (state.kind !== 'approved') return state;
  const { target } = state;
  const step = options.step ?? directGateStep;
  let outcome: AuthorizeOutcome;
  try {
    // No token (pending, denied, used): authorize without one says which, with the gate's reason.
    const token = await step('token', () => issuedToken(port, target.requestId));
    const expected =
      target.editedCallId === undefined
        ? { callId: call.callId, toolName: call.toolName, arguments: call.arguments }
        : { callId: target.editedCallId, toolName: call.toolName };
    outcome = await step('authorize', () => port.authorize({ proposalId: target.proposalId, token, ...call.context, ...expected }));
  } catch (error) {
    // authorize is sent once; if its answer was lost the approval may be spent: nothing runs (at most once).
    return refused('not_approved', 'store_unavailable', unreachable(error), target.proposalId);
  }
  if (outcome.status === 'authorized') return { kind: 'run', grant: outcome.grant, edited: target.editedCallId !== undefined };
  if (outcome.status === 'approval_required') return { kind: 'wait', requestId: outcome.requestId, proposalId: outcome.proposalId };
  // The approval may be spent: never shown as an ordinary refusal (the call may have run).
  if (outcome.reason === 'outcome_unknown') return settleUnknownOutcome(port, outcome.proposalId ?? target.proposalId, outcome.message, step);
  return refused(outcome.status, outcome.reason, outcome.message, outcome.proposalId ?? target.proposalId);
}

/**
 * The machine's last step: the tool ran (or threw), its outcome is recorded with
 * `port.complete`. Never throws; the tool's result stands whatever happens here, and a
 * refused or lost completion (the call then reads `dispatched`: ran, result unknown) is
 * returned for the integration to report.
 */
export async function finishCall(port: GatePort, grant: Grant, completion: Completion): Promise<CompletionFailure | undefined> {
  let failure: CompletionFailure | undefined;
  await completeOrReport(port, grant, completion, (f) => {
    failure = f;
  });
  return failure;
}

/**
 * Runs `execute` under the machine: on a grant, runs it with the grant and records its
 * result (`succeeded`) or its error (`failed`, then rethrown). `errorText` turns a
 * thrown error into the text the framework shows the model, so the relay check can
 * match it. Completion failures go to `onCompletionFailure`.
 *
 * `recordAfterAnswer`: the result is returned (or the error rethrown) as soon as `execute`
 * settles, and the recording is handed to this callback unstarted (digesting the result is
 * work the answer need not wait for): the callback must start it once the answer is on its
 * way, soon (until then a crash leaves the call `dispatched`: ran, result unknown), and keep
 * its promise (wait for it before closing the store). Only for a caller whose answer nothing
 * checks against the recorded result before the recording settles: a relay check of a result
 * not recorded yet refuses it (`not_executed`), as it refuses one whose recording was lost.
 */
export async function runGranted<T>(
  port: GatePort,
  grant: Grant,
  execute: (grant: Grant) => Promise<T> | T,
  options: {
    errorText?: (error: unknown) => string;
    resultOf?: (result: T) => unknown;
    onCompletionFailure?: (failure: CompletionFailure) => void;
    recordAfterAnswer?: (record: () => Promise<void>) => void;
  } = {},
): Promise<T> {
  const record = async (completion: Completion) => {
    const failure = await finishCall(port, grant, completion);
    if (failure !== undefined) options.onCompletionFailure?.(failure);
  };
  const recording = (completion: Completion) => {
    if (options.recordAfterAnswer === undefined) return record(completion);
    options.recordAfterAnswer(() => record(completion));
    return undefined;
  };
  let result: T;
  try {
    result = await execute(grant);
  } catch (error) {
    const text = options.errorText?.(error) ?? (error instanceof Error ? error.message : String(error));
    await recording({ status: 'failed', error: text });
    throw error;
  }
  await recording({ status: 'succeeded', result: options.resultOf === undefined ? result : options.resultOf(result) });
  return result;
}

/**
 * For a call resent by a client or read back from a serialized run state, before any
 * gate call: is it still the call the model made (same tool, same canonical arguments
 * as the index recorded)? `authorize` checks the same again; this lets a framework's
 * approval hook refuse early, in its own shape. Undefined when it matches.
 */
export function recordedMismatch(recorded: IndexedCall, callId: string, toolName: string, args: unknown): GuardedRefusal | undefined {
  const { proposalId } = recorded;
  if (recorded.toolName !== toolName) return { status: 'not_approved', reason: 'tool_mismatch', message: `call ${callId} was proposed for ${recorded.toolName}, not ${toolName}`, proposalId };
  let digest: string;
  try {
    digest = canonicalizeArguments(args).digest;
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return { status: 'not_approved', reason: 'invalid_arguments', message: 'the arguments are not valid canonical JSON', proposalId };
  }
  if (digest !== recorded.argsDigest) return { status: 'not_approved', reason: 'args_mismatch', message: 'the arguments differ from the ones the model proposed', proposalId };
  return undefined;
}
