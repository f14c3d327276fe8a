import type { AuthorizeOutcome, Completion, Grant } from '@countersign/core';
import { completeOrReport, issuedToken, unreachable } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { CountersignRefusal, type CountersignReason, type CountersignRefusalStatus } from './refusal.ts';

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
  try {
    const waited = await guard.port.waitForDecision(outcome.requestId, { timeoutMs: guard.approval.waitMs });
    // Approved: execute fetches the token and authorizes. Denied or expired: execute refuses with the gate's reason.
    return waited.ok && waited.status === 'pending';
  } catch {
    return false;
  }
}

type Execute = (input: unknown, options: ExecuteOptions) => unknown;

async function runGuarded(guard: CountersignGuard, toolName: string, input: unknown, options: ExecuteOptions, execute: Execute): Promise<unknown> {
  const grant = await authorizeCall(guard, toolName, input, options.toolCallId);
  // The ledger's arguments, exactly as proposed and approved; never the (resent) input.
  const args: unknown = JSON.parse(grant.canonicalArgs);
  let result: unknown;
  try {
    result = await execute(args, options);
    if (isAsyncIterable(result)) result = await lastOf(result);
  } catch (error) {
    await completeSafely(guard, grant, { status: 'failed', error: errorText(error) });
    throw error;
  }
  await completeSafely(guard, grant, { status: 'succeeded', result });
  return result;
}

async function authorizeCall(guard: CountersignGuard, toolName: string, input: unknown, toolCallId: string): Promise<Grant> {
  const { runId, sessionId, principal } = guard.context;
  const fail = (status: CountersignRefusalStatus, reason: CountersignReason, message: string, proposalId?: string): never => {
    throw new CountersignRefusal(guard.refuse({ status, reason, message, toolCallId, toolName, proposalId }));
  };
  const indexed = await guard.index.get(runId, toolCallId);
  if (indexed === undefined) {
    const proposed = guard.proposedOutcome(toolCallId);
    if (proposed?.status === 'denied' || proposed?.status === 'rejected') return fail(proposed.status, proposed.reason, proposed.message, proposed.status === 'denied' ? proposed.proposalId : undefined);
    return fail('not_approved', 'unknown_call', `no model response in run ${runId} contained call ${toolCallId}`);
  }
  let outcome: AuthorizeOutcome;
  try {
    // No token (pending, denied, used): authorize without one says which, with the gate's reason.
    const token = await issuedToken(guard.port, indexed.requestId);
    outcome = await guard.port.authorize({
      proposalId: indexed.proposalId,
      token,
      runId,
      sessionId,
      principal,
      callId: toolCallId,
      toolName,
      arguments: input,
    });
  } catch (error) {
    // authorize is sent once; if its answer was lost the approval may be spent: nothing runs (at most once).
    return fail('not_approved', 'store_unavailable', unreachable(error), indexed.proposalId);
  }
  if (outcome.status === 'authorized') return outcome.grant;
  if (outcome.status === 'approval_required') {
    return fail('not_approved', 'approval_pending', `approval request ${outcome.requestId} has not been approved`, outcome.proposalId);
  }
  return fail(outcome.status, outcome.reason, outcome.message, outcome.proposalId ?? indexed.proposalId);
}

function completeSafely(guard: CountersignGuard, grant: Grant, completion: Completion): Promise<void> {
  // The tool ran; its result stands. An unrecorded result leaves the call `dispatched` ("ran, result unknown").
  return completeOrReport(guard.port, grant, completion, (failure) => guard.completionFailures.push(failure));
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
