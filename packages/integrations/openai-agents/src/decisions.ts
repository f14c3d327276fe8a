import type { RunToolApprovalItem } from '@openai/agents';
import { approvalState, type GuardedRefusal, recordedMismatch } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { type CountersignDenial, formatRefusal } from './refusal.ts';
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

/**
 * The guarded-call state machine's answer for an interrupted call: still the model's
 * call (index: same tool, same canonical arguments), then its approval followed in
 * Countersign (an approver's edit followed to the edited call, which `invoke` runs).
 */
async function decisionFor(guard: CountersignGuard, call: { callId: string; name: string; arguments: string }): Promise<Verdict> {
  const refuse = (refusal: GuardedRefusal): Verdict => ({ kind: 'refused', denial: guard.refuse({ ...refusal, callId: call.callId, toolName: call.name }) });
  const indexed = await guard.index.get(guard.context.runId, call.callId);
  const mismatch = indexed === undefined ? undefined : recordedMismatch(indexed, call.callId, call.name, call.arguments);
  if (mismatch !== undefined) return refuse(mismatch);
  const state = await approvalState(guard.port, indexed, guard.context, call.callId);
  if (state.kind === 'approved') return { kind: 'approved' };
  if (state.kind === 'wait') return { kind: 'pending' };
  return refuse(state.refusal);
}
