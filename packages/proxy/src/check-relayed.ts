import { CountersignRelayRefusal, checkRelayedOrThrow } from '@countersign/core/integration';
import type { RelayedResults } from './relayed.ts';
import { invalidRequest, type ProxyError, refused } from './refusal.ts';
import type { RunContext } from './run-context.ts';

/**
 * CASA check 5: every tool result the request relays to the model must be one of the
 * accepted projections of the result recorded for that call (core's
 * `checkRelayedOrThrow`; the gate compares digests and audits every refusal). Every
 * result goes to the ledger, refusal-looking text included: a refusal is never
 * recognised by its text. Any failure refuses the whole request; nothing is forwarded.
 * This file only writes core's refusal as the proxy's typed error.
 */
export async function checkRelayed(ctx: RunContext, relayed: Extract<RelayedResults, { ok: true }>): Promise<ProxyError | undefined> {
  try {
    await checkRelayedOrThrow(ctx.port, ctx.runId, relayed.messages);
    return undefined;
  } catch (error) {
    if (!(error instanceof CountersignRelayRefusal)) throw error;
    return relayError(error, relayed);
  }
}

function relayError(refusal: CountersignRelayRefusal, relayed: Extract<RelayedResults, { ok: true }>): ProxyError {
  if (refusal.reason === 'invalid_request') return invalidRequest('invalid_tool_message', refusal.detail);
  if (refusal.reason === 'store_unavailable') return refused('store_unavailable', `checking the relayed tool results failed: ${refusal.detail}`);
  const { failures } = refusal;
  const first = failures[0];
  const reasons = new Set(failures.map((f) => f.reason));
  // One reason for all failures is the precise code; a mix is the umbrella code, with each failure listed.
  const code = reasons.size === 1 && first !== undefined ? first.reason : 'relay_refused';
  const index = first === undefined ? -1 : relayed.messages.findIndex((m) => m.callId === first.callId);
  const message = first === undefined ? refusal.detail : `Countersign refused the relayed result of ${first.callId}: ${first.reason}: ${first.message}`;
  return refused(code, message, relayed.params[index], { check: 'data_fidelity', failures });
}
