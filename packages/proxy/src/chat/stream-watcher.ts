import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import { eventJson } from '../sse/event-json.ts';
import type { StreamWatcher } from '../sse/guard-stream.ts';
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
 * from the first chunk with a `finish_reason` (then `[DONE]`). Every chunk is read, held or
 * not: a delta after the finish chunk, or for another choice, is part of the calls.
 *
 * Id and name are assembled as the official `openai` client (openai-node's
 * ChatCompletionStream) assembles them: a non-empty fragment replaces what was there, an
 * empty one changes nothing; argument fragments are appended. A name sent again in a
 * later delta is the same call; a name sent in two different fragments is refused as
 * ambiguous, because clients that append fragments (hand-written loops, other SDKs) would
 * read another name than the one recorded.
 */
export function chatStreamWatcher(): StreamWatcher {
  const partial = new Map<string, PartialCall>();
  let responseRef: string | undefined;
  return {
    observe(event) {
      if (event.data === '[DONE]') return 'hold';
      const parsed = eventJson(event);
      if (!parsed.ok) return { error: parsed.error };
      const chunk = parsed.data;
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
              if (problem !== undefined) {
                return { error: unrecordable(problem, 'a streamed tool call delta is malformed, not a function call, or names its call or tool ambiguously') };
              }
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
  if (delta.id !== undefined && delta.id !== null) {
    if (typeof delta.id !== 'string' || (call.id !== '' && delta.id !== '' && call.id !== delta.id)) return param;
    if (delta.id !== '') call.id = delta.id;
  }
  if (fn !== undefined) {
    if (fn.name !== undefined && fn.name !== null) {
      if (typeof fn.name !== 'string' || (call.name !== '' && fn.name !== '' && call.name !== fn.name)) return param;
      if (fn.name !== '') call.name = fn.name;
    }
    if (fn.arguments !== undefined && fn.arguments !== null) {
      if (typeof fn.arguments !== 'string') return param;
      call.arguments += fn.arguments;
    }
  }
  return undefined;
}
