import type { RelayedToolMessage, RelayFailure } from '@countersign/core/gate';
import { unreachable } from './call-verdict.ts';
import type { CountersignGuard } from './guard.ts';

/**
 * Thrown from the wrapped model before a request is sent when a tool result in the
 * prompt is not the result recorded for its call (CASA check 5): the client edited a
 * result in the history it sent back, or made one up. The model is never called;
 * `generateText`/`streamText` reject with this error.
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
  const toolMessages = relayedToolResults(prompt as PromptMessage[]);
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
