import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import type { StreamWatcher } from '../sse/guard-stream.ts';
import { unreadableUpstream } from '../upstream-error.ts';
import { unrecordable } from './tool-calls.ts';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  param: string;
}

/**
 * Assembles a streamed chat completion's tool calls from their deltas (keyed by choice and
 * tool-call index: the id and name come first, the argument text in fragments), and holds
 * from the first chunk with a `finish_reason` (then `[DONE]`).
 */
export function chatStreamWatcher(): StreamWatcher {
  const partial = new Map<string, PartialCall>();
  let responseRef: string | undefined;
  return {
    observe(event) {
      if (event.data === '[DONE]') return 'hold';
      let chunk: unknown;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        return { error: unreadableUpstream('a stream event is not JSON') };
      }
      if (!isRecord(chunk)) return { error: unreadableUpstream('a stream event is not a JSON object') };
      if (typeof chunk.id === 'string') responseRef ??= chunk.id;
      if (!Array.isArray(chunk.choices)) return 'pass';
      let finished = false;
      for (const choice of chunk.choices) {
        if (!isRecord(choice)) continue;
        const index = typeof choice.index === 'number' ? choice.index : 0;
        const delta = choice.delta;
        if (isRecord(delta)) {
          if (delta.function_call !== undefined && delta.function_call !== null) {
            return { error: unrecordable(`choices[${index}].delta.function_call`, 'a legacy function_call has no call id') };
          }
          if (Array.isArray(delta.tool_calls)) {
            for (const toolCall of delta.tool_calls) {
              const problem = addDelta(partial, index, toolCall);
              if (problem !== undefined) return { error: unrecordable(problem, 'a streamed tool call delta is malformed or not a function call') };
            }
          }
        }
        if (choice.finish_reason !== undefined && choice.finish_reason !== null) finished = true;
      }
      return finished ? 'hold' : 'pass';
    },
    calls(): ModelCalls {
      const calls: ModelCall[] = [];
      for (const call of partial.values()) {
        if (call.id === '' || call.name === '') return { ok: false, error: unrecordable(call.param, 'a streamed tool call never got its id or name') };
        calls.push({ id: call.id, name: call.name, arguments: call.arguments });
      }
      return { ok: true, calls };
    },
    responseRef: () => responseRef,
  };
}

/** Adds one tool-call delta; returns the param of a malformed one. */
function addDelta(partial: Map<string, PartialCall>, choice: number, delta: unknown): string | undefined {
  const at = isRecord(delta) && typeof delta.index === 'number' ? delta.index : undefined;
  const param = `choices[${choice}].delta.tool_calls[${at ?? '?'}]`;
  if (!isRecord(delta) || at === undefined) return param;
  if (delta.type !== undefined && delta.type !== 'function') return param;
  const fn = delta.function;
  if (fn !== undefined && !isRecord(fn)) return param;
  const key = `${choice}:${at}`;
  let call = partial.get(key);
  if (call === undefined) {
    call = { id: '', name: '', arguments: '', param };
    partial.set(key, call);
  }
  if (delta.id !== undefined) {
    if (typeof delta.id !== 'string' || (call.id !== '' && call.id !== delta.id)) return param;
    call.id = delta.id;
  }
  if (fn !== undefined) {
    if (fn.name !== undefined) {
      if (typeof fn.name !== 'string') return param;
      call.name += fn.name;
    }
    if (fn.arguments !== undefined) {
      if (typeof fn.arguments !== 'string') return param;
      call.arguments += fn.arguments;
    }
  }
  return undefined;
}
