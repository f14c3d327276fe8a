import type { RelayedToolMessage } from '@countersign/core/gate';
import { checkRelayedOrThrow } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';
import { refusalOf } from './refusal.ts';

/**
 * Thrown from the wrapped model before a request is sent when a tool result in its
 * input is not the result recorded for its call (CASA check 5): a serialized
 * `RunState` or a resent history whose tool output was edited or made up. The model
 * is never called; the run rejects with this error.
 */
export { CountersignRelayRefusal } from '@countersign/core/integration';

interface InputItem {
  type?: unknown;
  callId?: unknown;
  output?: unknown;
}

/**
 * The tool results a model request relays (`function_call_result` items), as
 * `checkRelayed` reads them: a `{ type: 'text', text }` output as its text, a string
 * as is, content-part arrays as parts. Countersign refusals carry no result (nothing
 * ran) and are not checked: a forged one tells the model only that a call was refused.
 */
export function relayedToolResults(input: unknown): RelayedToolMessage[] {
  if (!Array.isArray(input)) return [];
  const relayed: RelayedToolMessage[] = [];
  for (const item of input as InputItem[]) {
    if (item?.type !== 'function_call_result' || typeof item.callId !== 'string') continue;
    if (refusalOf(item.output) !== undefined) continue;
    const output = item.output as { type?: unknown; text?: unknown } | undefined;
    const content = typeof output === 'object' && output !== null && output.type === 'text' ? output.text : output;
    relayed.push({ callId: item.callId, content });
  }
  return relayed;
}

/** Checks a request's relayed tool results against the ledger; throws `CountersignRelayRefusal` unless all are faithful. */
export async function checkRelayedInput(guard: CountersignGuard, input: unknown): Promise<void> {
  await checkRelayedOrThrow(guard.port, guard.context.runId, relayedToolResults(input));
}
