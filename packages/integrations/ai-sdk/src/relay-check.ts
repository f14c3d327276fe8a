import type { RelayedToolMessage } from '@countersign/core/gate';
import { checkRelayedOrThrow } from '@countersign/core/integration';
import type { CountersignGuard } from './guard.ts';

/**
 * Thrown from the wrapped model before a request is sent when a tool result in the
 * prompt is not the result recorded for its call (CASA check 5): the client edited a
 * result in the history it sent back, or made one up. The model is never called;
 * `generateText`/`streamText` reject with this error.
 */
export { CountersignRelayRefusal } from '@countersign/core/integration';

interface PromptMessage {
  role: string;
  content: unknown;
}

/**
 * The tool results a model request relays, as `checkRelayed` reads them: the SDK's
 * `json` output (the tool's raw result), `text` and `content` parts. Error outputs
 * (tool errors, Countersign refusals, `execution-denied`) carry no result and are not
 * checked.
 */
export function relayedToolResults(prompt: readonly PromptMessage[]): RelayedToolMessage[] {
  const relayed: RelayedToolMessage[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: unknown; toolCallId?: unknown; output?: { type?: unknown; value?: unknown } }>) {
      if (part.type !== 'tool-result' || typeof part.toolCallId !== 'string') continue;
      const type = part.output?.type;
      if (type === 'json' || type === 'text' || type === 'content') relayed.push({ callId: part.toolCallId, content: part.output?.value });
    }
  }
  return relayed;
}

/** Checks the prompt's relayed tool results against the ledger; throws `CountersignRelayRefusal` unless all are faithful. */
export async function checkRelayedPrompt(guard: CountersignGuard, prompt: unknown): Promise<void> {
  if (!Array.isArray(prompt)) return;
  await checkRelayedOrThrow(guard.port, guard.context.runId, relayedToolResults(prompt as PromptMessage[]));
}
