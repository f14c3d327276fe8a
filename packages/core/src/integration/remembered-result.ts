import type { GatePort } from '../gate/index.ts';
import type { CallIndex, RememberedResult } from './call-index.ts';

/**
 * Remembers the result a call's tool returned (`CallIndex.recordResult`). Never throws
 * and does not wait: a record that fails only means a later re-run of the call is
 * answered `already_consumed` instead of with its result; the tool never runs twice.
 */
export function rememberResult(index: CallIndex, runId: string, callId: string, result: RememberedResult): void {
  if (index.recordResult === undefined || callId === '') return;
  try {
    Promise.resolve(index.recordResult(runId, callId, result)).catch(() => undefined);
  } catch {
    // As above.
  }
}

/**
 * For a call the gate refused as `already_consumed`: the result its tool returned when
 * it ran, if the index remembers one AND the ledger says it is exactly the call's
 * recorded result (`port.checkRelayed`, the relay check the next model request would
 * make anyway). Undefined otherwise (not remembered, not yet recorded, or different):
 * the refusal stands. Nothing runs either way. Never throws.
 */
export async function rememberedResult(port: GatePort, index: CallIndex, runId: string, callId: string): Promise<RememberedResult | undefined> {
  if (index.getResult === undefined) return undefined;
  try {
    const remembered = await index.getResult(runId, callId);
    if (remembered === undefined) return undefined;
    const checked = await port.checkRelayed({ runId, toolMessages: [{ callId, content: remembered.content }] });
    return checked.ok ? remembered : undefined;
  } catch {
    return undefined;
  }
}
