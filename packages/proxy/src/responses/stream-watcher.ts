import { unrecordable } from '../chat/tool-calls.ts';
import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import { eventJson } from '../sse/event-json.ts';
import type { StreamWatcher } from '../sse/guard-stream.ts';
import { unreadableUpstream } from '../upstream-error.ts';
import { providerOutputDigest } from '@countersign/core/gate';
import { functionCallOf } from './function-calls.ts';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Collects a streamed Responses API response's function calls from every form the stream
 * gives a finished call: `response.function_call_arguments.done` (with the call id and
 * name its `output_item.added` announced), `response.output_item.done`, and the terminal
 * response's `output`. Holds from the first of these (so a runtime acting on any of them
 * never sees an unrecorded call) and reads every later event too, so a second call, or a
 * terminal event whose output disagrees with what was streamed, is caught: two forms of
 * one call id with different names or arguments refuse the response, as does a function
 * call that was started and never finished.
 */
export function responsesStreamWatcher(): StreamWatcher {
  const calls = new Map<string, ModelCall>();
  // Function call items announced by output_item.added, by item id: their call id and name.
  const started = new Map<string, { callId: string; name: string; param: string }>();
  let responseRef: string | undefined;
  let conflict: string | undefined;
  const add = (call: ModelCall, param: string) => {
    const known = calls.get(call.id);
    if (known !== undefined && (known.name !== call.name || known.arguments !== call.arguments || outputsDiffer(known, call))) conflict ??= param;
    if (known === undefined) calls.set(call.id, call);
  };
  return {
    observe(event) {
      if (event.data === '[DONE]') return 'hold';
      const parsed = eventJson(event);
      if (!parsed.ok) return { error: parsed.error };
      const data = parsed.data;
      const response = data.response;
      if (isRecord(response) && typeof response.id === 'string') responseRef ??= response.id;
      const param = `output[${String(data.output_index)}]`;
      if (data.type === 'response.output_item.added') {
        const item = data.item;
        // Without its ids the start cannot be matched with its end; the finished item is recorded (or refused) on its own.
        if (isRecord(item) && item.type === 'function_call' && typeof item.id === 'string' && typeof item.call_id === 'string' && typeof item.name === 'string') {
          started.set(item.id, { callId: item.call_id, name: item.name, param });
        }
        return 'pass';
      }
      if (data.type === 'response.function_call_arguments.done') {
        const item = typeof data.item_id === 'string' ? started.get(data.item_id) : undefined;
        if (item === undefined || typeof data.arguments !== 'string') return { error: unrecordable(param, 'finished arguments of a function call that never started') };
        add({ id: item.callId, name: typeof data.name === 'string' ? data.name : item.name, arguments: data.arguments }, param);
        return 'hold';
      }
      if (data.type === 'response.output_item.done') {
        const called = functionCallOf(data.item, param);
        if (called === undefined) return 'pass';
        if (!called.ok) return { error: called.error };
        add(called.call, param);
        return 'hold';
      }
      if (typeof data.type === 'string' && TERMINAL.has(data.type)) {
        const output = isRecord(response) ? response.output : undefined;
        if (Array.isArray(output)) {
          for (const [i, item] of output.entries()) {
            const called = functionCallOf(item, `response.output[${i}]`);
            if (called === undefined) continue;
            if (!called.ok) return { error: called.error };
            add(called.call, `response.output[${i}]`);
          }
        }
        return 'hold';
      }
      return 'pass';
    },
    calls(): ModelCalls {
      if (conflict !== undefined) return { ok: false, error: unreadableUpstream(`${conflict}: one call id streamed with two different calls`) };
      for (const item of started.values()) {
        if (!calls.has(item.callId)) return { ok: false, error: unrecordable(item.param, `the function call ${item.callId} was started and never finished`) };
      }
      return { ok: true, calls: [...calls.values()] };
    },
    responseRef: () => responseRef,
  };
}

/** A hosted item streamed twice (`output_item.done`, the terminal response) with two different outputs: which one the client keeps is not the proxy's to guess. */
function outputsDiffer(a: ModelCall, b: ModelCall): boolean {
  return a.output !== undefined && b.output !== undefined && providerOutputDigest(a.output) !== providerOutputDigest(b.output);
}
