import type { RunContext } from '@openai/agents';
import { approvalState, CountersignUnguardedTool, type GuardedRefusal, guardCall, runGranted } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { formatRefusal } from './refusal.ts';
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
 * Tools of other kinds (hosted, computer, shell, apply-patch) run where no checkpoint
 * here can hold them: they are refused here, at setup, with `CountersignUnguardedTool`.
 * The wrapped model refuses, before the first model call, any tool the runner lists
 * that was not guarded here (tools it builds at run time from `mcpServers`, say).
 */
export function guardTools<TOOLS extends readonly AnyTool[]>(tools: TOOLS, guard: CountersignGuard): TOOLS {
  return tools.map((tool) => {
    if (tool.type !== 'function') throw new CountersignUnguardedTool(tool.name, tool.type, 'it runs outside the agent process, where Countersign cannot hold it');
    if (isAgentTool(tool)) throw new CountersignUnguardedTool(tool.name, 'agent_tool', 'an agent used as a tool runs its own model and tools: build it with cs.agentTool(agent, options)');
    return guardFunctionTool(tool, guard);
  }) as unknown as TOOLS;
}

export function guardFunctionTool<TOOL extends AnyFunctionTool>(tool: TOOL, guard: CountersignGuard): TOOL {
  const guarded = { ...tool, ...guardedMembers(tool, guard) };
  guard.wrapped.add(guarded);
  return guarded;
}

/** What a guarded function tool replaces: the approval question and the invocation (the tool's own `invoke` runs inside). */
export function guardedMembers(tool: AnyFunctionTool, guard: CountersignGuard): Pick<AnyFunctionTool, 'needsApproval' | 'invoke'> {
  guard.guarded.add(tool.name);
  const invoke = tool.invoke;
  return {
    needsApproval: (_runContext: RunContext, _input: unknown, callId?: string) => needsApproval(guard, callId),
    invoke: (runContext: AnyRunContext, input: string, details?: InvokeDetails) => runGuarded(guard, { ...tool, invoke }, runContext, input, details),
  };
}

/** The SDK's `AgentTool` (what `agent.asTool` returns) is a function tool with an `on` method for its nested run's events. */
export function isAgentTool(tool: AnyFunctionTool): boolean {
  return typeof (tool as { on?: unknown }).on === 'function';
}

/**
 * True when the call needs an approver's decision in Countersign that is not there yet
 * (the guarded-call state machine's `wait`; an approver's edit is followed to the
 * edited call). Every other case returns false and leaves the verdict to `invoke`
 * (whose `authorize` is the check): an allowed call runs, a denied or unknown one is
 * refused there, in the SDK's own output shape.
 */
async function needsApproval(guard: CountersignGuard, callId: string | undefined): Promise<boolean> {
  if (callId === undefined) return false;
  const fresh = guard.proposedOutcome(callId);
  if (fresh !== undefined && fresh.status !== 'approval_required') return false;
  // Just proposed through this guard, or (a resumed run, maybe in another process) from the index.
  const recorded = fresh ?? (await guard.index.get(guard.context.runId, callId));
  if (recorded === undefined || !('requestId' in recorded) || recorded.requestId === undefined) return false;
  const waitMs = guard.approval === 'interrupt' ? 0 : guard.approval.waitMs;
  const state = await approvalState(guard.port, recorded, guard.context, callId, { waitMs });
  return state.kind === 'wait';
}

async function runGuarded(guard: CountersignGuard, tool: AnyFunctionTool, runContext: AnyRunContext, input: string, details: InvokeDetails): Promise<unknown> {
  const callId = details?.toolCall?.callId;
  const refuse = (refusal: GuardedRefusal) => formatRefusal(guard.refuse({ ...refusal, callId: callId ?? '', toolName: tool.name }));
  if (callId === undefined) return refuse({ status: 'not_approved', reason: 'unknown_call', message: 'the SDK gave no call id for this tool call' });
  const recorded = guard.proposedOutcome(callId) ?? (await guard.index.get(guard.context.runId, callId));
  const step = await guardCall(guard.port, { context: guard.context, callId, toolName: tool.name, arguments: input, recorded });
  if (step.kind === 'wait') {
    return refuse({ status: 'not_approved', reason: 'approval_pending', message: `approval request ${step.requestId} has not been approved in Countersign`, proposalId: step.proposalId });
  }
  // `unknown`: the approval may be spent; shown with reason outcome_unknown (may have run, do not retry), never run.
  if (step.kind === 'refused' || step.kind === 'unknown') return refuse(step.refusal);
  // The ledger's arguments, exactly as proposed and approved (or as the approver edited them); never the RunState's.
  return runGranted(guard.port, step.grant, () => tool.invoke(runContext, step.grant.canonicalArgs, details), {
    onCompletionFailure: (failure) => guard.completionFailures.push(failure),
  });
}
