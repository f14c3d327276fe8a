import { isRecord, type RelayedResults } from '../relayed.ts';
import { invalidRequest } from '../refusal.ts';
import { unknownOutputShape } from '../tool-output-shape.ts';
import { isHostedItem } from './function-calls.ts';

/**
 * Input items that carry no tool output the model reads: messages, the model's own calls
 * and reasoning, a reference to an item the provider stored (it passed the proxy when it
 * was sent). `function_call_output` carries one and is checked.
 */
const ITEMS_WITHOUT_OUTPUT = new Set([
  'message',
  'function_call',
  'reasoning',
  'item_reference',
  'computer_call',
  'local_shell_call',
  'custom_tool_call',
  'shell_call',
  'apply_patch_call',
]);

/** The roles of a message item. */
const MESSAGE_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/**
 * Every tool result a Responses API request relays: input items of type
 * `function_call_output`, by `call_id`, and the provider's hosted-tool items
 * (`web_search_call`, `file_search_call`, `mcp_call`…), by item id, each compared whole with
 * the output recorded when the provider produced it. Deny by default for shapes: any other
 * item that can carry a tool's output (`custom_tool_call_output`, `computer_call_output`,
 * an item type the API adds later) is refused, never forwarded unchecked; so is a message of a role the proxy does
 * not know, and an output of any shape but text or `input_text` parts.
 */
export function responsesToolOutputs(body: Record<string, unknown>): RelayedResults {
  const found: RelayedResults & { ok: true } = { ok: true, messages: [], params: [] };
  const input = body.input;
  if (input === undefined || typeof input === 'string') return found;
  if (!Array.isArray(input)) return { ok: false, error: invalidRequest('invalid_input', 'input must be a string or an array', 'input') };
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    const param = `input[${i}]`;
    if (!isRecord(item)) return { ok: false, error: invalidRequest('invalid_input', 'an input item must be an object', param) };
    // An item without a type is a message (`{ role, content }`).
    const type = item.type ?? 'message';
    if (type === 'message' && !MESSAGE_ROLES.has(item.role as string)) {
      return { ok: false, error: invalidRequest('unsupported_input_item', `a message of role ${JSON.stringify(item.role)} is not one the proxy knows`, `${param}.role`) };
    }
    if (typeof type === 'string' && ITEMS_WITHOUT_OUTPUT.has(type)) continue;
    if (isHostedItem(type)) {
      // A hosted tool's item, sent back: the provider's output, compared whole with the one recorded for its call.
      if (typeof item.id !== 'string' || item.id === '') return { ok: false, error: invalidRequest('invalid_tool_output', `a ${String(type)} item needs its id`, `${param}.id`) };
      found.messages.push({ callId: item.id, content: item, providerOutput: true });
      found.params.push(param);
      continue;
    }
    if (type !== 'function_call_output') {
      return { ok: false, error: invalidRequest('unsupported_tool_output', `${JSON.stringify(type)} items cannot be checked; only function_call_output is relayed`, param) };
    }
    if (typeof item.call_id !== 'string' || item.call_id === '') {
      return { ok: false, error: invalidRequest('invalid_tool_output', 'a function_call_output needs its call_id', `${param}.call_id`) };
    }
    const unknown = unknownOutputShape(item.output, 'input_text');
    if (unknown !== undefined) return { ok: false, error: invalidRequest('unsupported_tool_output', unknown.why, `${param}.output${unknown.at}`) };
    found.messages.push({ callId: item.call_id, content: item.output });
    found.params.push(param);
  }
  return found;
}
