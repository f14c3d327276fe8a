import { type CountersignReason, parseRefusal, type RefusalText } from '@countersign/core/integration';

export { type CountersignReason, type CountersignRefusalStatus, formatRefusal, parseRefusal, REFUSAL_PREFIX } from '@countersign/core/integration';

/** A refusal, typed: what the app branches on and what a UI can render. */
export interface CountersignDenial extends RefusalText<CountersignReason> {
  /** The SDK's `callId` of the function call. */
  callId: string;
  toolName: string;
  proposalId?: string | undefined;
}

/**
 * The typed refusal in a tool output as the SDK holds it: a `RunToolCallOutputItem`'s
 * `output`, a `function_call_result` item's `output` (a string or `{ type: 'text', text }`),
 * or the text itself. Undefined when the output is not a Countersign refusal.
 */
export function refusalOf(output: unknown): RefusalText | undefined {
  if (typeof output === 'string') return parseRefusal(output);
  if (typeof output !== 'object' || output === null) return undefined;
  const { type, text } = output as { type?: unknown; text?: unknown };
  if (type === 'text') return parseRefusal(text);
  return undefined;
}
