import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import type { StreamWatcher } from '../sse/guard-stream.ts';
import { unreadableUpstream } from '../upstream-error.ts';
import { functionCallOf } from './function-calls.ts';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Collects a streamed Responses API response's function calls: from each finished output
 * item and from the terminal response's `output`. Holds from the first finished function
 * call item (so a runtime acting on `output_item.done` never sees an unrecorded call) or
 * the terminal event.
 */
export function responsesStreamWatcher(): StreamWatcher {
  const calls = new Map<string, ModelCall>();
  let responseRef: string | undefined;
  let conflict: string | undefined;
  const add = (call: ModelCall, param: string) => {
    const known = calls.get(call.id);
    if (known !== undefined && (known.name !== call.name || known.arguments !== call.arguments)) conflict ??= param;
    calls.set(call.id, call);
  };
  return {
    observe(event) {
      if (event.data === '[DONE]') return 'hold';
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return { error: unreadableUpstream('a stream event is not JSON') };
      }
      if (!isRecord(data)) return { error: unreadableUpstream('a stream event is not a JSON object') };
      const response = data.response;
      if (isRecord(response) && typeof response.id === 'string') responseRef ??= response.id;
      if (data.type === 'response.output_item.done') {
        const called = functionCallOf(data.item, `output[${String(data.output_index)}]`);
        if (called === undefined) return 'pass';
        if (!called.ok) return { error: called.error };
        add(called.call, `output[${String(data.output_index)}]`);
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
      return { ok: true, calls: [...calls.values()] };
    },
    responseRef: () => responseRef,
  };
}
