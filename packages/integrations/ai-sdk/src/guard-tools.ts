import { approvalState, guardCall, runGranted } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { CountersignRefusal } from './refusal.ts';

/** The part of an AI SDK tool the guard touches; everything else is kept as is. */
interface GuardableTool {
  execute?: ((input: never, options: never) => unknown) | undefined;
  needsApproval?: unknown;
}

interface ExecuteOptions {
  toolCallId: string;
}

/**
 * Wraps each tool's `execute` so it runs only after `port.authorize` granted exactly that
 * call (run, session, principal, call id, tool name and arguments checked against the
 * ledger, the approval consumed once), with the LEDGER's arguments, then reports the raw
 * result with `port.complete`. A refusal throws `CountersignRefusal`: the SDK's native
 * tool error, carrying the typed reason; nothing ran.
 *
 * Also sets the v6 `needsApproval` hook from the same policy verdict, so `ai` 6 (and v7
 * without `toolApproval`) asks for approval where Countersign requires it. Tools without
 * `execute` (answered by the client) are left alone: there is nothing here to hold.
 */
export function guardTools<TOOLS extends Record<string, GuardableTool>>(tools: TOOLS, guard: CountersignGuard): TOOLS {
  const guarded: Record<string, GuardableTool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (execute === undefined) {
      guarded[name] = tool;
      continue;
    }
    guarded[name] = {
      ...tool,
      execute: ((input: unknown, options: ExecuteOptions) => runGuarded(guard, name, input, options, execute as never)) as never,
      needsApproval: (_input: unknown, options: ExecuteOptions) => needsApproval(guard, options.toolCallId),
    };
  }
  return guarded as TOOLS;
}

/**
 * The v6 hook: true when this response's call needs a person's approval in Countersign
 * (in `{ waitMs }` mode: unless an approver approved it meanwhile). Refusals are not
 * given here but by `execute`, as tool errors; a call from a resent history is left to
 * `execute` too (its `authorize` is the check).
 */
async function needsApproval(guard: CountersignGuard, toolCallId: string): Promise<boolean> {
  const outcome = guard.takeUnanswered(toolCallId);
  if (outcome?.status !== 'approval_required') return false;
  if (guard.approval === 'ask') return true;
  // Approved (or edited and the edit approved): execute authorizes. Refused: execute refuses with the gate's reason.
  const state = await approvalState(guard.port, outcome, guard.context, toolCallId, { waitMs: guard.approval.waitMs });
  return state.kind === 'wait';
}

type Execute = (input: unknown, options: ExecuteOptions) => unknown;

async function runGuarded(guard: CountersignGuard, toolName: string, input: unknown, options: ExecuteOptions, execute: Execute): Promise<unknown> {
  const { toolCallId } = options;
  const recorded = guard.proposedOutcome(toolCallId) ?? (await guard.index.get(guard.context.runId, toolCallId));
  const step = await guardCall(guard.port, { context: guard.context, callId: toolCallId, toolName, arguments: input, recorded });
  if (step.kind === 'wait') {
    throw new CountersignRefusal(
      guard.refuse({ status: 'not_approved', reason: 'approval_pending', message: `approval request ${step.requestId} has not been approved in Countersign`, toolCallId, toolName, proposalId: step.proposalId }),
    );
  }
  // `unknown`: the approval may be spent; shown with reason outcome_unknown (may have run, do not retry), never run.
  if (step.kind === 'refused' || step.kind === 'unknown') throw new CountersignRefusal(guard.refuse({ ...step.refusal, toolCallId, toolName }));
  // The ledger's arguments, exactly as proposed and approved (or as the approver edited them); never the (resent) input.
  return runGranted(guard.port, step.grant, async () => {
    const result = await execute(JSON.parse(step.grant.canonicalArgs), options);
    return isAsyncIterable(result) ? lastOf(result) : result;
  }, { errorText, onCompletionFailure: (failure) => guard.completionFailures.push(failure) });
}

/** The error text exactly as the SDK relays it to the model (its `getErrorMessage`), so relay checks can match it. */
function errorText(error: unknown): string {
  if (error == null) return 'unknown error';
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.toString();
  return JSON.stringify(error);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** A streaming tool's final output is its result (what the SDK reports as the tool result). */
async function lastOf(iterable: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of iterable) last = value;
  return last;
}
