import type { ModelCall, ModelCalls } from '../model-call.ts';
import { errorBody, type ProxyError } from '../refusal.ts';
import { isEmptyEvent, parseEvent, type SseEvent, takeEvents } from './sse-event.ts';

/** Reads a model's event stream: assembles its tool calls and says where the response starts to complete. */
export interface StreamWatcher {
  /** `hold`: this event completes the response (finish reason, `[DONE]`, response.completed...): hold it and all after. */
  observe(event: SseEvent): 'pass' | 'hold' | { error: ProxyError };
  /** Every tool call the stream carried, once it ended. */
  calls(): ModelCalls;
  /** The model response id, for the ledger. */
  responseRef(): string | undefined;
}

export type RecordStreamCalls = (calls: readonly ModelCall[], responseRef: string | undefined) => Promise<ProxyError | undefined>;

const encoder = new TextEncoder();

/**
 * CASA check 2 on a stream: events pass through as they arrive (tokens and tool-call
 * deltas are not delayed) until the first event that completes the response; that one
 * and everything after it are held until the stream has ended and every assembled call
 * is recorded. If recording fails, or a call cannot be recorded, the client gets an
 * `error` event instead of the held completion, and the stream ends.
 */
export function guardStream(upstream: ReadableStream<Uint8Array>, watcher: StreamWatcher, record: RecordStreamCalls): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = '';
  let holding = false;
  let failed = false;
  const held: string[] = [];

  const fail = (controller: TransformStreamDefaultController<Uint8Array>, error: ProxyError) => {
    failed = true;
    held.length = 0;
    controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(errorBody(error))}\n\n`));
    controller.terminate(); // cancels the upstream body: nothing after the refusal reaches the client
  };

  const take = (raw: string, event: SseEvent, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (holding) {
      held.push(raw);
      return;
    }
    const seen = isEmptyEvent(event) ? 'pass' : watcher.observe(event);
    if (typeof seen === 'object') return fail(controller, seen.error);
    if (seen === 'hold') {
      holding = true;
      held.push(raw);
      return;
    }
    controller.enqueue(encoder.encode(raw));
  };

  const guard = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (failed) return;
      buffer += decoder.decode(chunk, { stream: true });
      const { events, rest } = takeEvents(buffer);
      buffer = rest;
      for (const { raw, event } of events) {
        take(raw, event, controller);
        if (failed) return;
      }
    },
    async flush(controller) {
      if (failed) return;
      buffer += decoder.decode();
      // A last event without its blank line still counts (and is checked like the others).
      if (buffer.trim() !== '') take(buffer, parseEvent(buffer), controller);
      if (failed) return;
      const calls = watcher.calls();
      if (!calls.ok) return fail(controller, calls.error);
      const refusal = await record(calls.calls, watcher.responseRef());
      if (refusal !== undefined) return fail(controller, refusal);
      for (const raw of held) controller.enqueue(encoder.encode(raw));
    },
  });
  return upstream.pipeThrough(guard);
}
