import { auditingUnknownShapes, type RelayedMessage, relayChecked, unknownShape } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';

/**
 * Thrown from the wrapped model before a request is sent when a tool result in its
 * input is not the result recorded for its call (CASA check 5): a serialized
 * `RunState` or a resent history whose tool output was edited or made up. The model
 * is never called; the run rejects with this error.
 */
export { CountersignRelayRefusal } from '@countersign/core/integration';

interface InputItem {
  type?: unknown;
  role?: unknown;
  callId?: unknown;
  output?: unknown;
}

/** Input items that carry no tool output: the conversation, the model's own calls and reasoning. */
const CARRIES_NO_OUTPUT = new Set(['message', 'function_call', 'reasoning']);

/**
 * Every item of a model request's input that carries a tool's output to the model:
 * `function_call_result` items, whatever their output (a string, `{ type: 'text' }`,
 * content parts), Countersign refusals included (trusted only when this integration gave
 * exactly that refusal for the call: `relayChecked`). Deny by default: any other item
 * type that is not a message, a function call or reasoning (hosted tool, computer,
 * shell and apply-patch outputs, unknown items) throws `CountersignRelayRefusal`
 * (`invalid_request`) instead of reaching the model.
 */
export function relayedToolResults(input: unknown): RelayedMessage[] {
  if (!Array.isArray(input)) return [];
  const relayed: RelayedMessage[] = [];
  for (const item of input as InputItem[]) {
    const type = item?.type ?? (typeof item?.role === 'string' ? 'message' : undefined);
    if (typeof type === 'string' && CARRIES_NO_OUTPUT.has(type)) continue;
    if (type !== 'function_call_result' || typeof item.callId !== 'string') throw unknownShape('a model request input item', item);
    relayed.push({ callId: item.callId, content: contentOf(item.output) });
  }
  return relayed;
}

function contentOf(output: unknown): unknown {
  const text = output as { type?: unknown; text?: unknown } | undefined;
  return typeof text === 'object' && text !== null && text.type === 'text' ? text.text : output;
}

/**
 * Checks every tool output a request relays against the ledger; throws `CountersignRelayRefusal` unless all are faithful.
 * An item of an unknown shape is refused and audited (`unknown_shape`).
 */
export async function checkRelayedInput(guard: CountersignGuard, input: unknown): Promise<void> {
  const relayed = await auditingUnknownShapes(guard.port, guard.context, () => relayedToolResults(input));
  await relayChecked(guard.port, { index: guard.index, runId: guard.context.runId }, relayed);
}
