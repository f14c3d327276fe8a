import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import { refused } from '../refusal.ts';

/**
 * The tool calls of a (non-streaming) chat completion, across all choices. A call the
 * proxy cannot record exactly (a legacy `function_call` with no id, a `custom` tool, a
 * malformed entry) refuses the response: deny by default, never passed through unrecorded.
 */
export function chatToolCalls(completion: unknown): ModelCalls {
  if (!isRecord(completion) || !Array.isArray(completion.choices)) return { ok: true, calls: [] };
  const calls: ModelCall[] = [];
  for (const [i, choice] of completion.choices.entries()) {
    const message = isRecord(choice) ? choice.message : undefined;
    if (!isRecord(message)) continue;
    if (message.function_call !== undefined && message.function_call !== null) {
      return { ok: false, error: unrecordable(`choices[${i}].message.function_call`, 'a legacy function_call has no call id') };
    }
    if (message.tool_calls === undefined || message.tool_calls === null) continue;
    if (!Array.isArray(message.tool_calls)) return { ok: false, error: unrecordable(`choices[${i}].message.tool_calls`, 'tool_calls is not a list') };
    for (const [j, call] of message.tool_calls.entries()) {
      const fn = isRecord(call) ? call.function : undefined;
      const param = `choices[${i}].message.tool_calls[${j}]`;
      if (!isRecord(call) || call.type !== 'function' || typeof call.id !== 'string' || !isRecord(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
        return { ok: false, error: unrecordable(param, 'only function tool calls with an id, a name and argument text can be recorded') };
      }
      calls.push({ id: call.id, name: fn.name, arguments: fn.arguments });
    }
  }
  return { ok: true, calls };
}

export function unrecordable(param: string, message: string) {
  return refused('unrecordable_tool_call', `the model's response holds a tool call Countersign cannot record: ${message}`, param);
}
