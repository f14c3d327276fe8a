import type { ModelCall, ModelCalls } from '../model-call.ts';
import { type ErrorFormat, errorBody, type ProxyError } from '../refusal.ts';
import { isEmptyEvent, parseEvent, type SseEvent, takeEvents } from './sse-event.ts';

/** Reads a model's event stream: assembles its tool calls and says where the response starts to complete. */
export interface StreamWatcher {
  /**
   * Called for every event of the stream, held or not. `hold`: from this event on the
   * response is complete to a client (finish reason, `[DONE]`, a finished call...): it and
   * every later event are held. Once holding, later answers other than errors are ignored.
   */
  observe(event: SseEvent): 'pass' | 'hold' | { error: ProxyError };
  /** Every tool call the stream carried, once it ended. */
  calls(): ModelCalls;
  /** The model response id, for the ledger. */
  responseRef(): string | undefined;
}

export type RecordStreamCalls = (calls: readonly ModelCall[], responseRef: string | undefined) => Promise<ProxyError | undefined>;

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8');

/**
 * CASA check 2 on a stream: events pass through as they arrive (tokens and tool-call
 * deltas are not delayed) until the first event that completes the response; that one
 * and everything after it are held until the stream has ended and every assembled call
 * is recorded. Held events are still read by the watcher, so a call (or a fragment of
 * one) that arrives after the finish is recorded too. If recording fails, or a call
 * cannot be recorded, the client gets an `error` event instead of the held completion,
 * and the stream ends.
 *
 * The stream is split into events on its bytes (read as latin1, one character per byte,
 * so nothing is lost) and each event is forwarded as the very bytes the upstream sent:
 * invalid UTF-8 reaches the client exactly as it left the model. Only the watcher reads a
 * UTF-8 decoding, the same one an SSE client makes.
 */
export function guardStream(upstream: ReadableStream<Uint8Array>, watcher: StreamWatcher, record: RecordStreamCalls, format: ErrorFormat = errorBody): ReadableStream<Uint8Array> {
  let buffer = '';
  let holding = false;
  let failed = false;
  const held: Uint8Array[] = [];

  const fail = (controller: TransformStreamDefaultController<Uint8Array>, error: ProxyError) => {
    failed = true;
    held.length = 0;
    controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(format(error))}\n\n`));
    controller.terminate(); // cancels the upstream body: nothing after the refusal reaches the client
  };

  const take = (raw: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    const bytes = Buffer.from(raw, 'latin1');
    const event = parseEvent(utf8.decode(bytes));
    const seen = isEmptyEvent(event) ? 'pass' : watcher.observe(event);
    if (typeof seen === 'object') return fail(controller, seen.error);
    if (seen === 'hold') holding = true;
    if (holding) held.push(bytes);
    else controller.enqueue(bytes);
  };

  const guard = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (failed) return;
      buffer += Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      const { events, rest } = takeEvents(buffer);
      buffer = rest;
      for (const raw of events) {
        take(raw, controller);
        if (failed) return;
      }
    },
    async flush(controller) {
      if (failed) return;
      // A last event without its blank line still counts (and is checked like the others).
      if (buffer.trim() !== '') take(buffer, controller);
      if (failed) return;
      const calls = watcher.calls();
      if (!calls.ok) return fail(controller, calls.error);
      const refusal = await record(calls.calls, watcher.responseRef());
      if (refusal !== undefined) return fail(controller, refusal);
      for (const bytes of held) controller.enqueue(bytes);
    },
  });
  return upstream.pipeThrough(guard);
}
