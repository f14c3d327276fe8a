import type { RelayedToolMessage, RelayFailure } from '@countersign/core/gate';
import { type CountersignGuard, unreachable } from './guard.ts';
import { refusalOf } from './refusal.ts';

/**
 * Thrown from the wrapped model before a request is sent when a tool result in its
 * input is not the result recorded for its call (CASA check 5): a serialized
 * `RunState` or a resent history whose tool output was edited or made up. The model
 * is never called; the run rejects with this error.
 */
export class CountersignRelayRefusal extends Error {
  readonly code = 'relay_refused' as const;
  readonly reason: 'relay_refused' | 'invalid_request' | 'store_unavailable';
  readonly failures: RelayFailure[];

  constructor(reason: CountersignRelayRefusal['reason'], message: string, failures: RelayFailure[] = []) {
    super(`countersign:relay_refused:${reason}: ${message}`);
    this.name = 'CountersignRelayRefusal';
    this.reason = reason;
    this.failures = failures;
  }
}

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
  const toolMessages = relayedToolResults(input);
  if (toolMessages.length === 0) return;
  let outcome: Awaited<ReturnType<CountersignGuard['port']['checkRelayed']>>;
  try {
    outcome = await guard.port.checkRelayed({ runId: guard.context.runId, toolMessages });
  } catch (error) {
    throw new CountersignRelayRefusal('store_unavailable', unreachable(error));
  }
  if (outcome.ok) return;
  throw new CountersignRelayRefusal(outcome.reason, outcome.message, outcome.reason === 'relay_refused' ? outcome.failures : []);
}
