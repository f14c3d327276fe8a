import type { AuthorizeOutcome, Completion, Grant } from '@countersign/core';
import type { RunContext } from '@openai/agents';
import { completeOrReport, issuedToken, unreachable } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { type CountersignDenial, type CountersignReason, type CountersignRefusalStatus, formatRefusal } from './refusal.ts';
import type { AnyFunctionTool, AnyRunContext, AnyTool } from './sdk-types.ts';

type InvokeDetails = Parameters<AnyFunctionTool['invoke']>[2];

/**
 * Wraps each function tool so that it runs only after `port.authorize` granted exactly
 * that call: run, session, principal, call id, tool name and arguments checked against
 * the ledger (where the guarded model recorded the model's response), the approval
 * consumed once. The tool then runs with the LEDGER's arguments, never with the ones a
 * (possibly edited) `RunState` carries, and its raw result is reported with
 * `port.complete`.
 *
 * `needsApproval` is answered from Countersign's policy verdict: `approve` interrupts
 * the run; `allow` does not; `deny`, unclassified and unknown calls do not interrupt
 * either but are refused at execution. A refusal is the tool's output, the text
 * `countersign:<status>:<reason>: <message>` (the SDK's `function_call_result`, what
 * the model reads for a failed call; `refusalOf` parses it back): nothing ran.
 *
 * Tools of other kinds (hosted, computer, shell, apply-patch) are returned unchanged:
 * wrap only function tools here, and keep the others out of agents that need the gate.
 */
export function guardTools<TOOLS extends readonly AnyTool[]>(tools: TOOLS, guard: CountersignGuard): TOOLS {
  return tools.map((tool) => (tool.type === 'function' ? guardFunctionTool(tool, guard) : tool)) as unknown as TOOLS;
}

export function guardFunctionTool<TOOL extends AnyFunctionTool>(tool: TOOL, guard: CountersignGuard): TOOL {
  return {
    ...tool,
    needsApproval: (_runContext: RunContext, _input: unknown, callId?: string) => needsApproval(guard, callId),
    invoke: (runContext: AnyRunContext, input: string, details?: InvokeDetails) => runGuarded(guard, tool, runContext, input, details),
  };
}

/**
 * True when the call needs an approver's decision in Countersign that is not there yet.
 * Every other case returns false and leaves the verdict to `invoke` (whose `authorize`
 * is the check): an allowed call runs, a denied or unknown one is refused there, in the
 * SDK's own output shape.
 */
async function needsApproval(guard: CountersignGuard, callId: string | undefined): Promise<boolean> {
  if (callId === undefined) return false;
  const fresh = guard.proposedOutcome(callId);
  if (fresh !== undefined && fresh.status !== 'approval_required') return false;
  // Just proposed through this guard, or (a resumed run, maybe in another process) from the index.
  const indexed = fresh?.status === 'approval_required' ? fresh : await guard.index.get(guard.context.runId, callId);
  if (indexed?.requestId === undefined) return false;
  try {
    if (guard.approval !== 'interrupt') {
      const waited = await guard.port.waitForDecision(indexed.requestId, { timeoutMs: guard.approval.waitMs });
      return waited.ok && waited.status === 'pending';
    }
    // Decided in Countersign (either way) means invoke answers: authorize runs it or refuses it.
    const read = await guard.port.callStatus(indexed.proposalId);
    return read.ok && read.call.request?.status === 'pending';
  } catch {
    return false;
  }
}

async function runGuarded(
  guard: CountersignGuard,
  tool: AnyFunctionTool,
  runContext: AnyRunContext,
  input: string,
  details: InvokeDetails,
): Promise<unknown> {
  const callId = details?.toolCall?.callId;
  const authorized = await authorizeCall(guard, tool.name, input, callId);
  if (!authorized.ok) return formatRefusal(authorized.denial);
  const { grant } = authorized;
  let result: unknown;
  try {
    // The ledger's arguments, exactly as proposed and approved; never the RunState's.
    result = await tool.invoke(runContext, grant.canonicalArgs, details);
  } catch (error) {
    await completeSafely(guard, grant, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  await completeSafely(guard, grant, { status: 'succeeded', result });
  return result;
}

type Authorized = { ok: true; grant: Grant } | { ok: false; denial: CountersignDenial };

async function authorizeCall(guard: CountersignGuard, toolName: string, input: string, callId: string | undefined): Promise<Authorized> {
  const { runId, sessionId, principal } = guard.context;
  const fail = (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string): Authorized => ({
    ok: false,
    denial: guard.refuse({ status, reason, message, callId: callId ?? '', toolName, proposalId }),
  });
  if (callId === undefined) return fail('not_approved', 'unknown_call', 'the SDK gave no call id for this tool call');
  const indexed = await guard.index.get(runId, callId);
  if (indexed === undefined) {
    const proposed = guard.proposedOutcome(callId);
    if (proposed?.status === 'denied' || proposed?.status === 'rejected') {
      return fail(proposed.status, proposed.reason, proposed.message, proposed.status === 'denied' ? proposed.proposalId : undefined);
    }
    return fail('not_approved', 'unknown_call', `no model response in run ${runId} contained call ${callId}`);
  }
  let outcome: AuthorizeOutcome;
  try {
    // No token (pending, denied, used): authorize without one says which, with the gate's reason.
    const token = await issuedToken(guard.port, indexed.requestId);
    outcome = await guard.port.authorize({ proposalId: indexed.proposalId, token, runId, sessionId, principal, callId, toolName, arguments: input });
  } catch (error) {
    // authorize is sent once; if its answer was lost the approval may be spent: nothing runs (at most once).
    return fail('not_approved', 'store_unavailable', unreachable(error), indexed.proposalId);
  }
  if (outcome.status === 'authorized') return { ok: true, grant: outcome.grant };
  if (outcome.status === 'approval_required') {
    return fail('not_approved', 'approval_pending', `approval request ${outcome.requestId} has not been approved in Countersign`, outcome.proposalId);
  }
  return fail(outcome.status, outcome.reason, outcome.message, outcome.proposalId ?? indexed.proposalId);
}

function completeSafely(guard: CountersignGuard, grant: Grant, completion: Completion): Promise<void> {
  // The tool ran; its result stands. An unrecorded result leaves the call `dispatched` ("ran, result unknown").
  return completeOrReport(guard.port, grant, completion, (failure) => guard.completionFailures.push(failure));
}
