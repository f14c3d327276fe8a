import type { GatePort } from '@countersign/core';
import {
  type CallIndex,
  type GuardedRefusal,
  type GuardedStep,
  guardCall,
  rememberedResult,
  rememberRefusal,
  rememberResult,
  runGranted,
} from '@countersign/core/integration';
import type { ToolCall } from '@langchain/core/messages';
import { ToolMessage } from '@langchain/core/messages';
import { interrupt } from '@langchain/langgraph';
import type { CountersignApprovalInterrupt } from './approval-interrupt.ts';
import type { CountersignContext } from './context.ts';
import { type CountersignDenial, formatRefusal, refusalMessage } from './refusal.ts';
import type { RecordedCall } from './state.ts';

/** What the guard needs from the middleware's options. */
export interface GuardSettings {
  port: GatePort;
  /** How long to wait for an approver before interrupting (server-side agents); 0 interrupts at once. */
  waitMs: number;
  /** Where the refusals this middleware gave are remembered (the relay check trusts only those). */
  index: CallIndex;
  /** Every refusal given, typed (the app can log or render them). */
  onRefusal: (denial: CountersignDenial) => void;
  /** Calls that ran but whose result `complete` could not record (they read `dispatched`). */
  onCompletionFailure: (failure: { proposalId: string; reason: string; message: string }) => void;
}

/**
 * `wrapToolCall`, on the guarded-call state machine (`guardCall`): runs the tool only
 * after `port.authorize` granted this exact call (run, session, principal, call id,
 * tool name and arguments checked against the ledger, an approval consumed once), with
 * the LEDGER's arguments (after an approver's edit: the edited ones), then reports the
 * result with `port.complete`. A call waiting for approval interrupts the graph with its
 * Countersign request; every resume reads the decision from Countersign, never from the
 * resume value, and a resume before the approver decided interrupts again (the call
 * stays open on the thread). Every refusal is a `ToolMessage` with `status: 'error'`.
 */
export async function guardToolCall<REQUEST extends { toolCall: ToolCall; tool?: unknown }, RESULT>(
  settings: GuardSettings,
  context: CountersignContext,
  recorded: RecordedCall | undefined,
  request: REQUEST,
  handler: (request: REQUEST) => Promise<RESULT> | RESULT,
): Promise<RESULT | ToolMessage> {
  const call = request.toolCall;
  const callId = typeof call.id === 'string' ? call.id : '';
  const refuse = (refusal: GuardedRefusal): ToolMessage => {
    const denial: CountersignDenial = { ...refusal, toolCallId: callId, toolName: call.name };
    settings.onRefusal(denial);
    rememberRefusal(settings.index, context.runId, callId, formatRefusal(denial));
    return refusalMessage(denial);
  };
  if (callId === '') return refuse({ status: 'rejected', reason: 'invalid_call', message: 'the tool call has no id' });
  const input = { context, callId, toolName: call.name, arguments: call.args, recorded };
  let step: GuardedStep = await guardCall(settings.port, input, { waitMs: settings.waitMs });
  while (step.kind === 'wait') {
    const value: CountersignApprovalInterrupt = { type: 'countersign_approval', toolCallId: callId, toolName: call.name, args: call.args, requestId: step.requestId, proposalId: step.proposalId };
    // Throws GraphInterrupt (the graph pauses); on resume returns the resume value, which is not evidence and is ignored.
    interrupt(value);
    step = await guardCall(settings.port, input);
  }
  // `unknown`: the approval may be spent; shown with reason outcome_unknown (may have run, do not retry), never run.
  if (step.kind === 'refused' && step.refusal.reason === 'already_consumed') {
    // A call that already ran, run again (createAgent 'v1' re-runs the whole ToolNode task after
    // a sibling's interrupt; a retry from the paused checkpoint): its real result, never a second run.
    const ran = await rememberedResult(settings.port, settings.index, context.runId, callId);
    if (ran !== undefined) return new ToolMessage({ tool_call_id: callId, name: call.name, content: ran.content as ToolMessage['content'], ...ran.extra });
  }
  if (step.kind === 'refused' || step.kind === 'unknown') return refuse(step.refusal);
  const { grant } = step;
  // The ledger's call, exactly as proposed and approved: never the state's (maybe edited) copy.
  const args = JSON.parse(grant.canonicalArgs) as Record<string, unknown>;
  const ledgerRequest = { ...request, toolCall: { ...call, args } };
  const onCompletionFailure = settings.onCompletionFailure;
  const run = async () => {
    const result = await handler(ledgerRequest);
    // Which ledger call produced this result (after an edit: the edited call), for the app and the approver's UI.
    if (ToolMessage.isInstance(result)) {
      result.additional_kwargs = { ...result.additional_kwargs, countersign: { callId: grant.callId, proposalId: grant.proposalId } };
      const extra = { status: result.status, additional_kwargs: { countersign: result.additional_kwargs.countersign } };
      rememberResult(settings.index, context.runId, callId, { content: result.content, extra });
    }
    return result;
  };
  return runGranted(settings.port, grant, run, {
    // A tool that returns a Command: its update is not one relayable result; recorded as ran.
    resultOf: (result) => (ToolMessage.isInstance(result) ? result.content : null),
    onCompletionFailure,
  });
}
