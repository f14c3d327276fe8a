import type { CallStatus } from '@countersign/core';
import { CanonicalizationError, canonicalizeArguments } from '@countersign/core/canonical';
import type { RunToolApprovalItem } from '@openai/agents';
import { unreachable } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { type CountersignDenial, type CountersignReason, type CountersignRefusalStatus, formatRefusal } from './refusal.ts';
import type { AnyRunState } from './sdk-types.ts';

/** An interruption of the run, with the Countersign approval request the approver decides. */
export interface CountersignApproval {
  callId: string;
  toolName: string;
  /** The Countersign approval request for this call; undefined when the call was never proposed here. */
  requestId: string | undefined;
  proposalId: string | undefined;
  item: RunToolApprovalItem;
}

/**
 * The Countersign approval requests behind a run's interruptions (`result.interruptions`),
 * looked up by call id in the app's call index: what the app shows an approver or sends
 * to its approval UI. The request id is not read from the interruption (it sits in the
 * serializable `RunState`); the index is the app's own record.
 */
export async function countersignApprovals(guard: CountersignGuard, interruptions: readonly RunToolApprovalItem[]): Promise<CountersignApproval[]> {
  const approvals: CountersignApproval[] = [];
  for (const item of interruptions) {
    if (item.rawItem.type !== 'function_call') continue;
    const { callId, name } = item.rawItem;
    const indexed = await guard.index.get(guard.context.runId, callId);
    approvals.push({ callId, toolName: name, requestId: indexed?.requestId, proposalId: indexed?.proposalId, item });
  }
  return approvals;
}

export interface AppliedDecisions {
  /** Approved in Countersign: `state.approve` was called (the call still runs only through `authorize`). */
  approved: string[];
  /** Refused: `state.reject` was called with the refusal text, which the model reads as the tool's output. */
  refused: CountersignDenial[];
  /** No decision yet: left as is (resuming interrupts again). */
  pending: string[];
}

/**
 * Carries Countersign's decisions into a `RunState` before the app resumes it: each
 * interruption is approved in the SDK only when an approver approved that call in
 * Countersign, and only if the interruption is still the call the model made (same
 * tool, same canonical arguments as the ledger's); otherwise it is rejected with a
 * typed refusal. Whatever the state said before is overwritten, so an approval written
 * into a serialized state by someone else counts for nothing. (It would not run anyway:
 * the guarded tool's `authorize` checks the ledger again.)
 */
export async function applyCountersignDecisions(guard: CountersignGuard, state: AnyRunState): Promise<AppliedDecisions> {
  const applied: AppliedDecisions = { approved: [], refused: [], pending: [] };
  for (const item of state.getInterruptions()) {
    if (item.rawItem.type !== 'function_call') continue;
    const verdict = await decisionFor(guard, item.rawItem);
    if (verdict.kind === 'approved') {
      state.approve(item);
      applied.approved.push(item.rawItem.callId);
    } else if (verdict.kind === 'pending') {
      applied.pending.push(item.rawItem.callId);
    } else {
      state.reject(item, { message: formatRefusal(verdict.denial) });
      applied.refused.push(verdict.denial);
    }
  }
  return applied;
}

type Verdict = { kind: 'approved' } | { kind: 'pending' } | { kind: 'refused'; denial: CountersignDenial };

async function decisionFor(guard: CountersignGuard, call: { callId: string; name: string; arguments: string }): Promise<Verdict> {
  const refuse = (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string): Verdict => ({
    kind: 'refused',
    denial: guard.refuse({ status, reason, message, callId: call.callId, toolName: call.name, proposalId }),
  });
  const { runId } = guard.context;
  const indexed = await guard.index.get(runId, call.callId);
  if (indexed === undefined) return refuse('not_approved', 'unknown_call', `no model response in run ${runId} contained call ${call.callId}`);
  if (indexed.toolName !== call.name) {
    return refuse('not_approved', 'tool_mismatch', `call ${call.callId} was proposed for ${indexed.toolName}, not ${call.name}`, indexed.proposalId);
  }
  const digest = argsDigestOf(call.arguments);
  if (digest === undefined) return refuse('not_approved', 'invalid_arguments', 'the arguments are not valid canonical JSON', indexed.proposalId);
  if (digest !== indexed.argsDigest) return refuse('not_approved', 'args_mismatch', 'the arguments differ from the ones the model proposed', indexed.proposalId);
  let status: CallStatus;
  try {
    const read = await guard.port.callStatus(indexed.proposalId);
    if (!read.ok) return refuse('not_approved', read.reason === 'not_found' ? 'unknown_call' : 'store_unavailable', read.message, indexed.proposalId);
    status = read.call;
  } catch (error) {
    return refuse('not_approved', 'store_unavailable', unreachable(error), indexed.proposalId);
  }
  if (status.state !== 'proposed') {
    return refuse('not_approved', 'already_consumed', `call ${call.callId} was already dispatched (${status.state})`, indexed.proposalId);
  }
  const request = status.request;
  if (request === undefined || request.status === 'approved') return { kind: 'approved' };
  if (request.status === 'pending') return { kind: 'pending' };
  const [refusalStatus, reason, message] = REQUEST_REFUSALS[request.status] ?? ['not_approved', 'approval_pending', `approval request ${request.requestId} is ${request.status}`];
  return refuse(refusalStatus, reason, message.replace('{request}', request.requestId), indexed.proposalId);
}

const REQUEST_REFUSALS: Record<string, [CountersignRefusalStatus, CountersignReason, string]> = {
  denied: ['denied', 'approval_denied', 'approval request {request} was denied'],
  revoked: ['not_approved', 'approval_revoked', 'approval request {request} was revoked'],
  consumed: ['not_approved', 'already_consumed', 'approval request {request} was already used'],
  expired: ['not_approved', 'expired', 'approval request {request} expired'],
  edited: ['not_approved', 'approval_edited', 'the approver edited this call: the edited call is a new call'],
};

/** SHA-256 of the canonical form of the arguments as core computes it, or undefined when they have none. */
function argsDigestOf(args: string): string | undefined {
  try {
    return canonicalizeArguments(args).digest;
  } catch (error) {
    if (error instanceof CanonicalizationError) return undefined;
    throw error;
  }
}
