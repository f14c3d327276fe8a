import type { ModelCall } from './model-call.ts';
import { type ProxyError, refused } from './refusal.ts';
import type { RunContext } from './run-context.ts';

/**
 * CASA check 2: records every tool call of one model response in the ledger, in one
 * `propose`, before the client may see the response complete. Calls that need approval
 * are recorded and passed on (the gateway holds them until approved); a call refused at
 * propose (denied, unpinned definition, invalid arguments, store down) refuses the whole
 * response, so the client never gets calls that were not recorded as runnable.
 */
export async function recordCalls(ctx: RunContext, calls: readonly ModelCall[], responseRef: string | undefined, task?: string): Promise<ProxyError | undefined> {
  if (calls.length === 0) return undefined;
  let outcomes: Awaited<ReturnType<RunContext['port']['propose']>>;
  try {
    outcomes = await ctx.port.propose({
      runId: ctx.runId,
      sessionId: ctx.sessionId,
      principal: ctx.principal,
      responseRef,
      // The task extracted from the conversation (never the conversation), for the intent stage.
      ...(task === undefined ? {} : { task }),
      toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
    });
  } catch (error) {
    return refused('store_unavailable', `recording the model's tool calls failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (outcomes.length !== calls.length) return refused('store_unavailable', 'the gate did not answer for every tool call');
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.status === 'allowed' || outcome.status === 'approval_required') continue;
    const call = calls[i]!;
    const countersign: Record<string, unknown> = { check: 'request_authorization', callId: call.id, toolName: call.name, status: outcome.status };
    if (outcome.status === 'denied' && outcome.proposalId !== undefined) countersign.proposalId = outcome.proposalId;
    if (outcome.status === 'rejected' && outcome.reviewRequestId !== undefined) countersign.reviewRequestId = outcome.reviewRequestId;
    return refused(outcome.reason, `Countersign refused the model's call ${call.id} (${call.name}): ${outcome.message}`, call.id, countersign);
  }
  return undefined;
}
