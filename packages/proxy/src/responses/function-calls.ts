import { unrecordable } from '../chat/tool-calls.ts';
import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';

/** Output items the client executes but the proxy does not record: refused (the provider runs its own hosted tools). */
const UNRECORDED_CALLS = new Set(['custom_tool_call', 'computer_call', 'local_shell_call', 'shell_call', 'apply_patch_call']);

/** The `function_call` items of a Responses API response's `output`, by `call_id` (the id its output refers to). */
export function responseFunctionCalls(output: unknown, where = 'output'): ModelCalls {
  if (!Array.isArray(output)) return { ok: true, calls: [] };
  const calls: ModelCall[] = [];
  for (const [i, item] of output.entries()) {
    const called = functionCallOf(item, `${where}[${i}]`);
    if (called === undefined) continue;
    if (!called.ok) return called;
    calls.push(called.call);
  }
  return { ok: true, calls };
}

/**
 * The provider's hosted tools, by output item type: the tool name policy sees and what of
 * the item is the call (its output is recorded apart, as a digest). Each is recorded as a call the provider
 * executed, so a deployment's policy decides on it like on any tool.
 */
const HOSTED_CALLS: Readonly<Record<string, { tool: (item: Record<string, unknown>) => unknown; args: (item: Record<string, unknown>) => Record<string, unknown> }>> = {
  web_search_call: { tool: () => 'web_search', args: (item) => (isRecord(item.action) ? item.action : {}) },
  file_search_call: { tool: () => 'file_search', args: (item) => ({ queries: item.queries ?? [] }) },
  code_interpreter_call: { tool: () => 'code_interpreter', args: (item) => ({ code: item.code ?? null, container_id: item.container_id ?? null }) },
  image_generation_call: { tool: () => 'image_generation', args: () => ({}) },
  // A remote MCP server's tool, run by the provider: recorded under its own name, with the arguments the model gave it.
  mcp_call: { tool: (item) => item.name, args: (item) => ({ server_label: item.server_label ?? null, arguments: item.arguments ?? null }) },
};

/** Whether an input item is one of the provider's hosted-tool items (its call and output in one). */
export function isHostedItem(type: unknown): boolean {
  return typeof type === 'string' && Object.hasOwn(HOSTED_CALLS, type);
}

/** One output item as a call: undefined when it is no call at all. */
export function functionCallOf(item: unknown, param: string): { ok: true; call: ModelCall } | Extract<ModelCalls, { ok: false }> | undefined {
  if (!isRecord(item) || typeof item.type !== 'string') return undefined;
  if (UNRECORDED_CALLS.has(item.type)) return { ok: false, error: unrecordable(param, `${item.type} items are not recorded; only function_call`) };
  const hosted = HOSTED_CALLS[item.type];
  if (hosted !== undefined) {
    const tool = hosted.tool(item);
    if (typeof item.id !== 'string' || item.id === '' || typeof tool !== 'string' || tool === '') return { ok: false, error: unrecordable(param, `a ${item.type} item needs its id and tool name`) };
    // The whole item is the provider's output (results, outputs, the MCP tool's answer): recorded, so sending it back is checked.
    return { ok: true, call: { id: item.id, name: tool, arguments: JSON.stringify(hosted.args(item)), executedBy: 'provider', output: item } };
  }
  if (item.type !== 'function_call') return undefined;
  if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
    return { ok: false, error: unrecordable(param, 'a function_call needs call_id, name and argument text') };
  }
  return { ok: true, call: { id: item.call_id, name: item.name, arguments: item.arguments } };
}
