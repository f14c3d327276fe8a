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

/** One output item as a call: undefined when it is no client-run call at all. */
export function functionCallOf(item: unknown, param: string): { ok: true; call: ModelCall } | Extract<ModelCalls, { ok: false }> | undefined {
  if (!isRecord(item) || typeof item.type !== 'string') return undefined;
  if (UNRECORDED_CALLS.has(item.type)) return { ok: false, error: unrecordable(param, `${item.type} items are not recorded; only function_call`) };
  if (item.type !== 'function_call') return undefined;
  if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
    return { ok: false, error: unrecordable(param, 'a function_call needs call_id, name and argument text') };
  }
  return { ok: true, call: { id: item.call_id, name: item.name, arguments: item.arguments } };
}
