import type { RelayedResults } from './relayed.ts';
import { invalidRequest, type ProxyError, refused } from './refusal.ts';
import type { RunContext } from './run-context.ts';

/**
 * CASA check 5: every tool result the request relays to the model must be one of the
 * accepted projections of the result recorded for that call (core compares digests and
 * audits every refusal). Any failure refuses the whole request; nothing is forwarded.
 */
export async function checkRelayed(ctx: RunContext, relayed: Extract<RelayedResults, { ok: true }>): Promise<ProxyError | undefined> {
  if (relayed.messages.length === 0) return undefined;
  let outcome: Awaited<ReturnType<RunContext['port']['checkRelayed']>>;
  try {
    outcome = await ctx.port.checkRelayed({ runId: ctx.runId, toolMessages: relayed.messages });
  } catch (error) {
    return refused('store_unavailable', `checking the relayed tool results failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (outcome.ok) return undefined;
  if (outcome.reason !== 'relay_refused') {
    return outcome.reason === 'invalid_request' ? invalidRequest('invalid_tool_message', outcome.message) : refused('store_unavailable', outcome.message);
  }
  const first = outcome.failures[0];
  const reasons = new Set(outcome.failures.map((f) => f.reason));
  // One reason for all failures is the precise code; a mix is the umbrella code, with each failure listed.
  const code = reasons.size === 1 && first !== undefined ? first.reason : 'relay_refused';
  const index = first === undefined ? -1 : relayed.messages.findIndex((m) => m.callId === first.callId);
  const message = first === undefined ? outcome.message : `Countersign refused the relayed result of ${first.callId}: ${first.reason}: ${first.message}`;
  return refused(code, message, relayed.params[index], { check: 'data_fidelity', failures: outcome.failures });
}
