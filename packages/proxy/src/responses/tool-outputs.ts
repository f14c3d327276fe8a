import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';

/** Results of tool kinds the proxy does not record calls of: relaying one is refused, never forwarded unchecked. */
const UNCHECKED_OUTPUTS = new Set([
  'custom_tool_call_output',
  'computer_call_output',
  'local_shell_call_output',
  'shell_call_output',
  'apply_patch_call_output',
]);

/** Every tool result a Responses API request relays: input items of type `function_call_output`, by `call_id`. */
export function responsesToolOutputs(body: Record<string, unknown>): RelayedResults {
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  const input = body.input;
  if (input === undefined || typeof input === 'string') return found;
  if (!Array.isArray(input)) return { ok: false, error: invalidRequest('invalid_input', 'input must be a string or an array', 'input') };
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (!isRecord(item)) continue;
    const param = `input[${i}]`;
    if (typeof item.type === 'string' && UNCHECKED_OUTPUTS.has(item.type)) {
      return { ok: false, error: invalidRequest('unsupported_tool_output', `${item.type} items cannot be checked; only function_call_output is relayed`, param) };
    }
    if (item.type !== 'function_call_output') continue;
    if (typeof item.call_id !== 'string' || item.call_id === '') {
      return { ok: false, error: invalidRequest('invalid_tool_output', 'a function_call_output needs its call_id', `${param}.call_id`) };
    }
    found.messages.push({ callId: item.call_id, content: item.output });
    found.params.push(param);
  }
  return found;
}
