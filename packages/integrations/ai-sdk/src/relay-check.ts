import { auditingUnknownShapes, type RelayedMessage, relayChecked, unknownShape } from '@countersign/core/integration';
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

interface ToolResultPart {
  type?: unknown;
  toolCallId?: unknown;
  output?: { type?: unknown; value?: unknown; reason?: unknown } | undefined;
}

/**
 * Every part of a model request that carries a tool's output to the model, whatever its
 * shape: `tool-result` parts of tool messages AND of assistant messages (a
 * provider-executed result, which a UI message converts into), with every output type
 * (`text`, `json`, `content`, `error-text`, `error-json`, `execution-denied` with its
 * reason). Deny by default: a part type or an output type not known here throws
 * `CountersignRelayRefusal` (`invalid_request`) instead of being passed through; so does a
 * `tool-approval-response` (it reaches a model only for a provider-executed tool, which
 * Countersign refuses).
 */
export function relayedToolResults(prompt: readonly PromptMessage[]): RelayedMessage[] {
  const relayed: RelayedMessage[] = [];
  for (const message of prompt) {
    if ((message.role !== 'tool' && message.role !== 'assistant') || !Array.isArray(message.content)) continue;
    for (const part of message.content as ToolResultPart[]) {
      if (message.role === 'assistant' && part?.type !== 'tool-result') continue;
      if (part?.type !== 'tool-result' || typeof part.toolCallId !== 'string') throw unknownShape(`a ${message.role} message`, part);
      const content = outputContent(part.output);
      if (content !== undefined) relayed.push({ callId: part.toolCallId, content });
    }
  }
  return relayed;
}

/** What the model reads of one tool output, as `checkRelayed` compares it. */
function outputContent(output: ToolResultPart['output']): unknown {
  switch (output?.type) {
    case 'text':
    case 'json':
    case 'content':
    case 'error-text':
    case 'error-json':
      return output.value;
    case 'execution-denied':
      // The model reads the reason; without one, the provider's own fixed text (nothing to check).
      return output.reason === undefined ? undefined : output.reason;
    default:
      throw unknownShape('a tool result output', output);
  }
}

/** The text of a relayed output as the refusal check reads it (the SDK prefixes a thrown refusal with its class name). */
function refusalText(content: unknown): string | undefined {
  if (typeof content !== 'string') return undefined;
  return content.startsWith('CountersignRefusal: ') ? content.slice('CountersignRefusal: '.length) : content;
}

/**
 * Checks every tool output in the prompt against the ledger; throws `CountersignRelayRefusal` unless all are faithful.
 * A part of an unknown shape is refused and audited (`unknown_shape`).
 */
export async function checkRelayedPrompt(guard: CountersignGuard, prompt: unknown): Promise<void> {
  if (!Array.isArray(prompt)) return;
  const relayed = await auditingUnknownShapes(guard.port, guard.context, () => relayedToolResults(prompt as PromptMessage[]));
  await relayChecked(guard.port, { index: guard.index, runId: guard.context.runId }, relayed, refusalText);
}
