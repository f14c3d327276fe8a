import { approvalState, type GuardedRefusal, recordedMismatch } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import type { CountersignDenial, CountersignReason } from './refusal.ts';

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

/**
 * The verdict for a call the SDK asks about, from the guarded-call state machine
 * (`approvalState`: the approval followed in Countersign, an approver's edit followed
 * to the edited call). A call of this response is judged by its propose outcome; any
 * other (a resent history: an approval the client sent back) by the app's index. Nothing
 * the client sent is evidence: `authorize` checks it all again at execute time; this is
 * here so the refusal comes back as the SDK's own `execution-denied` output.
 */
export async function verdictFor(guard: CountersignGuard, call: SdkToolCall): Promise<CallVerdict> {
  if (call.providerExecuted === true) {
    return refuse(guard, call, { status: 'denied', reason: 'provider_executed', message: 'the provider runs this tool itself; Countersign cannot hold it, so it is refused' });
  }
  const fresh = guard.takeUnanswered(call.toolCallId);
  if (fresh?.status === 'allowed') return { kind: 'run' };
  const indexed = fresh === undefined ? await guard.index.get(guard.context.runId, call.toolCallId) : undefined;
  const mismatch = indexed === undefined ? undefined : recordedMismatch(indexed, call.toolCallId, call.toolName, call.input);
  if (mismatch !== undefined) return refuse(guard, call, mismatch);
  const recorded = fresh ?? indexed;
  if (fresh?.status === 'approval_required' && guard.approval === 'ask') return { kind: 'ask', requestId: fresh.requestId };
  const waitMs = fresh !== undefined && guard.approval !== 'ask' ? guard.approval.waitMs : 0;
  const state = await approvalState(guard.port, recorded, guard.context, call.toolCallId, { waitMs });
  if (state.kind === 'approved') return { kind: 'run' };
  // A resent approval whose request is still pending: asked again, never run.
  if (state.kind === 'wait') return fresh === undefined ? refuse(guard, call, pendingRefusal(state.requestId, state.proposalId)) : { kind: 'ask', requestId: state.requestId };
  return refuse(guard, call, state.refusal);
}

const pendingRefusal = (requestId: string, proposalId: string): GuardedRefusal => ({
  status: 'not_approved',
  reason: 'approval_pending',
  message: `approval request ${requestId} has not been approved in Countersign`,
  proposalId,
});

function refuse(guard: CountersignGuard, call: SdkToolCall, refusal: Omit<GuardedRefusal, 'reason'> & { reason: CountersignReason }): CallVerdict {
  return { kind: 'refuse', denial: guard.refuse({ ...refusal, toolCallId: call.toolCallId, toolName: call.toolName }) };
}
