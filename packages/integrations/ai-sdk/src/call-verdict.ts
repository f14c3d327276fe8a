import { unreachable } from '@countersign/core/integration';
import type { CallStatus, ProposeOutcome } from '@countersign/core';
import { CanonicalizationError, canonicalizeArguments } from '@countersign/core/canonical';
import type { CountersignGuard } from './guard.ts';
import type { CountersignDenial, CountersignReason, CountersignRefusalStatus } from './refusal.ts';

/** A call as the SDK hands it to an approval hook: from this model response, or from a resent history. */
export interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerExecuted?: boolean | undefined;
}

/**
 * What the integration decided before execution. `run`: let the SDK call `execute`
 * (which still runs only after `authorize`); `ask`: the SDK's approval request;
 * `refuse`: a typed denial, nothing runs.
 */
export type CallVerdict = { kind: 'run' } | { kind: 'ask'; requestId: string } | { kind: 'refuse'; denial: CountersignDenial };

/** The verdict for a call the SDK asks about: this response's calls by their propose outcome, anything else as a resume. */
export async function verdictFor(guard: CountersignGuard, call: SdkToolCall): Promise<CallVerdict> {
  if (call.providerExecuted === true) {
    return refuse(guard, call, 'denied', 'provider_executed', 'the provider runs this tool itself; Countersign cannot hold it, so it is refused');
  }
  const outcome = guard.takeUnanswered(call.toolCallId);
  if (outcome !== undefined) return freshVerdict(guard, call, outcome);
  return resumeVerdict(guard, call);
}

async function freshVerdict(guard: CountersignGuard, call: SdkToolCall, outcome: ProposeOutcome): Promise<CallVerdict> {
  switch (outcome.status) {
    case 'allowed':
      return { kind: 'run' };
    case 'approval_required':
      if (guard.approval === 'ask') return { kind: 'ask', requestId: outcome.requestId };
      return waitForApprover(guard, call, outcome.requestId, guard.approval.waitMs);
    default:
      return refuse(guard, call, outcome.status, outcome.reason, outcome.message, outcome.status === 'denied' ? outcome.proposalId : undefined);
  }
}

/** Server-side agents: an approver decides in Countersign while the SDK waits. */
async function waitForApprover(guard: CountersignGuard, call: SdkToolCall, requestId: string, waitMs: number): Promise<CallVerdict> {
  try {
    const waited = await guard.port.waitForDecision(requestId, { timeoutMs: waitMs });
    if (!waited.ok) return refuse(guard, call, 'not_approved', waited.reason === 'not_found' ? 'unknown_call' : 'store_unavailable', waited.message);
    return verdictForRequestStatus(guard, call, waited.status, requestId) ?? { kind: 'run' };
  } catch (error) {
    return refuse(guard, call, 'not_approved', 'store_unavailable', unreachable(error));
  }
}

/**
 * A call the SDK is about to run from a resent history (an approval the client sent
 * back). Nothing the client sent is evidence: the call must be one the model made in
 * this run (the index), with the same tool and arguments, still unused, and approved
 * in Countersign. `authorize` checks all of it again at execute time; this is here so
 * the refusal comes back as the SDK's own `execution-denied` output.
 */
async function resumeVerdict(guard: CountersignGuard, call: SdkToolCall): Promise<CallVerdict> {
  const { runId } = guard.context;
  const indexed = await guard.index.get(runId, call.toolCallId);
  if (indexed === undefined) {
    return refuse(guard, call, 'not_approved', 'unknown_call', `no model response in run ${runId} contained call ${call.toolCallId}`);
  }
  if (indexed.toolName !== call.toolName) {
    return refuse(guard, call, 'not_approved', 'tool_mismatch', `call ${call.toolCallId} was proposed for ${indexed.toolName}, not ${call.toolName}`, indexed.proposalId);
  }
  const digest = argsDigestOf(call.input);
  if (digest === undefined) return refuse(guard, call, 'not_approved', 'invalid_arguments', 'the arguments are not valid canonical JSON', indexed.proposalId);
  if (digest !== indexed.argsDigest) {
    return refuse(guard, call, 'not_approved', 'args_mismatch', 'the arguments differ from the ones the model proposed', indexed.proposalId);
  }
  let status: CallStatus;
  try {
    const read = await guard.port.callStatus(indexed.proposalId);
    if (!read.ok) {
      return refuse(guard, call, 'not_approved', read.reason === 'not_found' ? 'unknown_call' : 'store_unavailable', read.message, indexed.proposalId);
    }
    status = read.call;
  } catch (error) {
    return refuse(guard, call, 'not_approved', 'store_unavailable', unreachable(error), indexed.proposalId);
  }
  if (status.state !== 'proposed') {
    return refuse(guard, call, 'not_approved', 'already_consumed', `call ${call.toolCallId} was already dispatched (${status.state})`, indexed.proposalId);
  }
  if (status.request === undefined) return { kind: 'run' };
  return verdictForRequestStatus(guard, call, status.request.status, status.request.requestId, indexed.proposalId) ?? { kind: 'run' };
}

/** A refusal for every request status but `approved`; undefined for `approved`. */
function verdictForRequestStatus(
  guard: CountersignGuard,
  call: SdkToolCall,
  status: string,
  requestId: string,
  proposalId?: string,
): CallVerdict | undefined {
  const refusals: Record<string, [CountersignRefusalStatus, CountersignReason, string]> = {
    pending: ['not_approved', 'approval_pending', `approval request ${requestId} has not been approved in Countersign`],
    denied: ['denied', 'approval_denied', `approval request ${requestId} was denied`],
    revoked: ['not_approved', 'approval_revoked', `approval request ${requestId} was revoked`],
    consumed: ['not_approved', 'already_consumed', `approval request ${requestId} was already used`],
    expired: ['not_approved', 'expired', `approval request ${requestId} expired`],
    edited: ['not_approved', 'approval_edited', `the approver edited call ${call.toolCallId}: the edited call is a new call`],
  };
  if (status === 'approved') return undefined;
  const [refusalStatus, reason, message] = refusals[status] ?? ['not_approved', 'approval_pending', `approval request ${requestId} is ${status}`];
  return refuse(guard, call, refusalStatus, reason, message, proposalId);
}

function refuse(
  guard: CountersignGuard,
  call: SdkToolCall,
  status: CountersignRefusalStatus,
  reason: CountersignReason,
  message: string,
  proposalId?: string,
): CallVerdict {
  return { kind: 'refuse', denial: guard.refuse({ status, reason, message, toolCallId: call.toolCallId, toolName: call.toolName, proposalId }) };
}

/** SHA-256 of the canonical form of `input` as core computes it, or undefined when it has none. */
function argsDigestOf(input: unknown): string | undefined {
  try {
    return canonicalizeArguments(input).digest;
  } catch (error) {
    if (error instanceof CanonicalizationError) return undefined;
    throw error;
  }
}
