import type { GatePort, RelayedToolMessage } from '../gate/index.ts';
import type { CallIndex } from './call-index.ts';
import { parseRefusal } from './refusal.ts';
import { CountersignRelayRefusal, checkRelayedOrThrow } from './relay.ts';
import { unreachable } from './unreachable.ts';

/**
 * One message that carries something to the model in the place of a tool's output,
 * whatever its shape in the framework: a result, an error text, a denial reason, a
 * provider-executed result. `content` is what the model reads.
 */
export interface RelayedMessage {
  callId: string;
  content: unknown;
}

/** Where an integration's refusals are looked up: its call index, for one run. */
export interface RefusalMemory {
  index: CallIndex;
  runId: string;
}

/**
 * Deny by default for shapes: every message that carries tool output to the model is
 * checked (CASA check 5). A refusal-shaped text (`countersign:<status>:<reason>: ...`)
 * is not trusted for its format: it passes only when it is exactly the refusal this
 * integration gave for that call of this run (recorded in its call index,
 * `CallIndex.recordRefusal`, beside the ledger ids). Anything else, refusal-looking or not, goes to
 * `port.checkRelayed`, which refuses (and audits) what is not the call's recorded
 * result. Throws `CountersignRelayRefusal`; the model is never called.
 */
export async function relayChecked(port: GatePort, memory: RefusalMemory, messages: readonly RelayedMessage[], textOf: (content: unknown) => string | undefined = plainText): Promise<void> {
  const checked: RelayedToolMessage[] = [];
  for (const message of messages) {
    const text = textOf(message.content);
    if (text !== undefined && parseRefusal(text) !== undefined && (await isRecordedRefusal(memory, message.callId, text))) continue;
    checked.push({ callId: message.callId, content: message.content });
  }
  await checkRelayedOrThrow(port, memory.runId, checked);
}

const plainText = (content: unknown): string | undefined => (typeof content === 'string' ? content : undefined);

async function isRecordedRefusal(memory: RefusalMemory, callId: string, text: string): Promise<boolean> {
  const { index, runId } = memory;
  if (index.hasRefusal === undefined) return false;
  try {
    return (await index.hasRefusal(runId, callId, text)) === true;
  } catch (error) {
    throw new CountersignRelayRefusal('store_unavailable', unreachable(error));
  }
}

/**
 * Records the refusal text an integration gave for a call, for `relayChecked`. Never
 * throws and does not wait: a record that fails only means the relayed refusal is not
 * recognised later, and that model request is refused (deny by default).
 */
export function rememberRefusal(index: CallIndex, runId: string, callId: string, text: string): void {
  if (index.recordRefusal === undefined || callId === '') return;
  try {
    Promise.resolve(index.recordRefusal(runId, callId, text)).catch(() => undefined);
  } catch {
    // As above: an unrecorded refusal is refused when relayed.
  }
}
