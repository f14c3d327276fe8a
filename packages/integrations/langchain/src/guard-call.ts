import { completeOrReport, issuedToken, unreachable } from '@countersign/core/integration';
import type { AuthorizeOutcome, Completion, GatePort, Grant, WaitOutcome } from '@countersign/core';
import type { ToolCall } from '@langchain/core/messages';
import { ToolMessage } from '@langchain/core/messages';
import { interrupt } from '@langchain/langgraph';
import type { CountersignApprovalInterrupt } from './approval-interrupt.ts';
import type { CountersignContext } from './context.ts';
import { type CountersignDenial, type CountersignReason, type CountersignRefusalStatus, refusalMessage } from './refusal.ts';
import type { RecordedCall } from './state.ts';

/** What the guard needs from the middleware's options. */
export interface GuardSettings {
  port: GatePort;
  /** How long to wait for an approver before interrupting (server-side agents); 0 interrupts at once. */
  waitMs: number;
  /** Every refusal given, typed (the app can log or render them). */
  onRefusal: (denial: CountersignDenial) => void;
  /** Calls that ran but whose result `complete` could not record (they read `dispatched`). */
  onCompletionFailure: (failure: { proposalId: string; reason: string; message: string }) => void;
}

/** The ledger call that will run for a tool call: the model's own, or the approver's edited one. */
interface Target {
  proposalId: string;
  requestId?: string | undefined;
  /** Set when the approver edited the call in Countersign: the edited call's ledger id and tool. */
  edited?: { callId: string; toolName: string } | undefined;
}

type Refusal = { refused: ToolMessage };

/**
 * `wrapToolCall`: runs the tool only after `port.authorize` granted this exact call (run,
 * session, principal, call id, tool name and arguments checked against the ledger, an
 * approval consumed once), with the LEDGER's arguments, then reports the result with
 * `port.complete`. A call waiting for approval interrupts the graph with its Countersign
 * request; on resume the decision is read from Countersign, never from the resume value.
 * Every refusal is a `ToolMessage` with `status: 'error'` and a typed reason.
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
  const refuse = (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string): Refusal => {
    const denial: CountersignDenial = { status, reason, message, toolCallId: callId, toolName: call.name, proposalId };
    settings.onRefusal(denial);
    return { refused: refusalMessage(denial) };
  };
  const target = await targetOf(settings, context, call, callId, recorded, refuse);
  if ('refused' in target) return target.refused;
  const granted = await authorizeTarget(settings, context, call, callId, target, refuse);
  if ('refused' in granted) return granted.refused;
  const { grant } = granted;
  // The ledger's call, exactly as proposed and approved: never the state's (maybe edited) copy.
  const args = JSON.parse(grant.canonicalArgs) as Record<string, unknown>;
  const sameTool = grant.toolName === call.name;
  const ledgerRequest = { ...request, toolCall: { ...call, name: grant.toolName, args }, tool: sameTool ? request.tool : undefined };
  let result: RESULT;
  try {
    result = await handler(ledgerRequest);
  } catch (error) {
    await completeSafely(settings, grant, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  if (ToolMessage.isInstance(result)) {
    await completeSafely(settings, grant, { status: 'succeeded', result: result.content });
    // Which ledger call produced this result, for the relay check of the next model request.
    result.additional_kwargs = { ...result.additional_kwargs, countersign: { callId: grant.callId, proposalId: grant.proposalId } };
  } else {
    // A tool that returns a Command: its update is not one relayable result; recorded as ran.
    await completeSafely(settings, grant, { status: 'succeeded', result: null });
  }
  return result;
}

async function targetOf(
  settings: GuardSettings,
  context: CountersignContext,
  call: ToolCall,
  callId: string,
  recorded: RecordedCall | undefined,
  refuse: (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string) => Refusal,
): Promise<Target | Refusal> {
  if (callId === '') return refuse('rejected', 'invalid_call', 'the tool call has no id');
  if (recorded === undefined) return refuse('not_approved', 'unknown_call', `no model response in run ${context.runId} contained call ${callId}`);
  if (recorded.status === 'allowed') return { proposalId: recorded.proposalId };
  if (recorded.status !== 'approval_required') return refuse(recorded.status, recorded.reason, recorded.message, recorded.proposalId);
  return approvedTarget(settings, call, callId, recorded, refuse);
}

/**
 * Follows the call's approval request in Countersign until it is approved: an edit made
 * there is followed to the edited call (a new proposal with its own request and policy
 * verdict); a pending request interrupts the graph once; after the resume, still
 * pending is `approval_pending`. The resume value is never read.
 */
async function approvedTarget(
  settings: GuardSettings,
  call: ToolCall,
  callId: string,
  recorded: Extract<RecordedCall, { status: 'approval_required' }>,
  refuse: (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string) => Refusal,
): Promise<Target | Refusal> {
  let target: Target = { proposalId: recorded.proposalId, requestId: recorded.requestId };
  let asked = false;
  // An edit of an edit is possible; a chain longer than this is refused rather than followed forever.
  for (let hop = 0; hop < 8; hop++) {
    const requestId = target.requestId as string;
    let waited: WaitOutcome;
    try {
      waited = await settings.port.waitForDecision(requestId, { timeoutMs: asked ? 0 : settings.waitMs });
    } catch (error) {
      return refuse('not_approved', 'store_unavailable', unreachable(error), target.proposalId);
    }
    if (!waited.ok) return refuse('not_approved', waited.reason === 'not_found' ? 'unknown_call' : 'store_unavailable', waited.message, target.proposalId);
    if (waited.status === 'approved') return target;
    if (waited.status === 'edited') {
      const edited = await editedTarget(settings, waited);
      if ('problem' in edited) return refuse('not_approved', 'approval_edited', edited.problem, target.proposalId);
      target = edited;
      continue;
    }
    if (waited.status === 'pending' && !asked) {
      const value: CountersignApprovalInterrupt = { type: 'countersign_approval', toolCallId: callId, toolName: call.name, args: call.args, requestId, proposalId: target.proposalId };
      // Throws GraphInterrupt (the graph pauses); returns the resume value, which is not evidence and is ignored.
      interrupt(value);
      asked = true;
      continue;
    }
    const [status, reason, message] = REQUEST_REFUSALS[waited.status] ?? ['not_approved', 'approval_pending', `approval request ${requestId} is ${waited.status}`];
    return refuse(status, reason, message.replace('{id}', requestId), target.proposalId);
  }
  return refuse('not_approved', 'approval_edited', `approval request ${recorded.requestId} was edited too many times`, recorded.proposalId);
}

const REQUEST_REFUSALS: Record<string, [CountersignRefusalStatus, CountersignReason, string]> = {
  pending: ['not_approved', 'approval_pending', 'approval request {id} has not been approved in Countersign'],
  denied: ['denied', 'approval_denied', 'approval request {id} was denied'],
  revoked: ['not_approved', 'approval_revoked', 'approval request {id} was revoked'],
  consumed: ['not_approved', 'already_consumed', 'approval request {id} was already used'],
  expired: ['not_approved', 'expired', 'approval request {id} expired'],
};

async function editedTarget(settings: GuardSettings, waited: Extract<WaitOutcome, { ok: true }>): Promise<Target | { problem: string }> {
  if (waited.editedProposalId === undefined || waited.editedRequestId === undefined) return { problem: `approval request ${waited.requestId} was edited, but the edited call is not named` };
  try {
    const status = await settings.port.callStatus(waited.editedProposalId);
    if (!status.ok) return { problem: status.message };
    return { proposalId: waited.editedProposalId, requestId: waited.editedRequestId, edited: { callId: status.call.callId, toolName: status.call.toolName } };
  } catch (error) {
    return { problem: unreachable(error) };
  }
}

async function authorizeTarget(
  settings: GuardSettings,
  context: CountersignContext,
  call: ToolCall,
  callId: string,
  target: Target,
  refuse: (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string) => Refusal,
): Promise<{ grant: Grant } | Refusal> {
  let outcome: AuthorizeOutcome;
  try {
    // No token (pending, denied, used): authorize without one says which, with the gate's reason.
    const token = await issuedToken(settings.port, target.requestId);
    // The model's call is cross-checked field for field (CASA checks 3 and 4); an edited
    // call is the approver's, so its own ledger id, tool and arguments are what run.
    const expected = target.edited === undefined ? { callId, toolName: call.name, arguments: call.args } : { callId: target.edited.callId, toolName: call.name };
    outcome = await settings.port.authorize({ proposalId: target.proposalId, token, ...context, ...expected });
  } catch (error) {
    // authorize is sent once; if its answer was lost the approval may be spent: nothing runs (at most once).
    return refuse('not_approved', 'store_unavailable', unreachable(error), target.proposalId);
  }
  if (outcome.status === 'authorized') return { grant: outcome.grant };
  if (outcome.status === 'approval_required') {
    return refuse('not_approved', 'approval_pending', `approval request ${outcome.requestId} has not been approved`, outcome.proposalId);
  }
  return refuse(outcome.status, outcome.reason, outcome.message, outcome.proposalId ?? target.proposalId);
}

function completeSafely(settings: GuardSettings, grant: Grant, completion: Completion): Promise<void> {
  // The tool ran; its result stands. An unrecorded result leaves the call `dispatched` ("ran, result unknown").
  return completeOrReport(settings.port, grant, completion, settings.onCompletionFailure);
}
