import { providerOutputDigest } from '@countersign/core/gate';
import { proposeOrReject, refusalAtPropose } from '@countersign/core/integration';
import type { ModelCall } from './model-call.ts';
import { type ProxyError, refused } from './refusal.ts';
import type { RunContext } from './run-context.ts';

/** What the intent stage is given with a response's calls: the user's task and the assistant's offers they accepted (core's `intentTask`). */
export interface CallIntent {
  task?: string | undefined;
  offered?: readonly string[] | undefined;
}

/**
 * CASA check 2: records every tool call of one model response in the ledger, in one
 * `propose` (core's `proposeOrReject`: one outcome per call, a store failure a
 * `store_unavailable` rejection of each), before the client may see the response
 * complete. Calls that need approval are recorded and passed on (the gateway holds them
 * until approved), except a hosted tool's (`executedBy: 'provider'`): it already ran, so
 * core refuses it as `provider_executed`; a call refused at propose (denied, unpinned definition, invalid
 * arguments, store down) refuses the whole response, so the client never gets calls that
 * were not recorded as runnable, nor the siblings of a refused call (they were chosen
 * together). The refusal names every refused call, in `countersign.refusals` (call id,
 * tool, status, reason, message) and in the error's message, which a runtime can hand to
 * the model as it is: the model learns which call was refused and why, and can answer
 * without it.
 */
export async function recordCalls(ctx: RunContext, calls: readonly ModelCall[], responseRef: string | undefined, intent: CallIntent = {}): Promise<ProxyError | undefined> {
  if (calls.length === 0) return undefined;
  const outcomes = await proposeOrReject(ctx.port, {
    runId: ctx.runId,
    sessionId: ctx.sessionId,
    principal: ctx.principal,
    responseRef,
    // The task extracted from the conversation (never the conversation) and the offers the user only accepted, for the intent stage.
    ...(intent.task === undefined ? {} : { task: intent.task }),
    ...(intent.offered === undefined ? {} : { offered: intent.offered }),
    // A hosted tool's call is marked as the provider's: the ledger then never authorizes it (no second run at the gateway).
    toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments, ...(call.executedBy === undefined ? {} : { executedBy: call.executedBy }) })),
  });
  const refusals: Array<Record<string, unknown>> = [];
  for (const [i, call] of calls.entries()) {
    // A hosted tool policy sends to a person comes back denied `provider_executed` (core: it already ran).
    const refusal = refusalAtPropose(outcomes[i]!);
    if (refusal !== undefined) refusals.push({ callId: call.id, toolName: call.name, ...refusal });
  }
  const first = refusals[0];
  if (first === undefined) return recordProviderOutputs(ctx, calls);
  // The first refused call gives the code and param (what OpenAI clients read); every refused call is listed.
  const { message: _, ...firstFields } = first;
  const countersign = { check: 'request_authorization', ...firstFields, refusals };
  const text = refusals.map((r) => `${String(r.callId)} (${String(r.toolName)}): ${String(r.reason)}: ${String(r.message)}`).join('; ');
  return refused(String(first.reason), `Countersign refused the model's call${refusals.length === 1 ? '' : 's'} ${text}`, String(first.callId), countersign);
}

/**
 * The output of each hosted tool the provider ran, as its digest (never the output): the
 * client sending it back to the model is then relay-checked against it (check 5). Recorded
 * before the client sees the answer complete; an output that cannot be recorded refuses the
 * answer, since the client could not send it back anyway.
 */
async function recordProviderOutputs(ctx: RunContext, calls: readonly ModelCall[]): Promise<ProxyError | undefined> {
  for (const call of calls) {
    if (call.executedBy !== 'provider' || call.output === undefined) continue;
    const outputDigest = providerOutputDigest(call.output);
    if (outputDigest === undefined) return refused('unrecordable_tool_call', `the output of ${call.id} (${call.name}) has no lossless JSON form`, call.id);
    const recorded = await ctx.port.recordProviderOutput({ runId: ctx.runId, callId: call.id, outputDigest });
    if (!recorded.ok) return refused(recorded.reason, `the output of ${call.id} (${call.name}) was not recorded: ${recorded.message}`, call.id);
  }
  return undefined;
}
