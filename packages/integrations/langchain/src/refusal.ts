import { type CountersignDenial, formatRefusal, parseRefusal, type RefusalText } from '@countersign/core/integration';
import { ToolMessage } from '@langchain/core/messages';

export { type CountersignDenial, type CountersignReason, type CountersignRefusalStatus, formatRefusal, parseRefusal } from '@countersign/core/integration';

/**
 * LangChain's native shape for a tool that did not run: a `ToolMessage` with
 * `status: 'error'` for the call's id. The model reads the text; the app reads the typed
 * denial in `additional_kwargs.countersign` (or `refusalOf(message)`). Nothing ran.
 */
export function refusalMessage(denial: CountersignDenial): ToolMessage {
  return new ToolMessage({
    content: formatRefusal(denial),
    tool_call_id: denial.toolCallId,
    name: denial.toolName,
    status: 'error',
    additional_kwargs: { countersign: { refused: true, ...denial } },
  });
}

/** The typed refusal in a `ToolMessage` (or its text), or undefined when it is not one. */
export function refusalOf(message: unknown): RefusalText | undefined {
  if (typeof message === 'string') return parseRefusal(message);
  if (ToolMessage.isInstance(message) && message.status === 'error') return parseRefusal(message.content);
  return undefined;
}
