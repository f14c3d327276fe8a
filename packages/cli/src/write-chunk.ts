import { once } from 'node:events';
import type { EventEmitter } from 'node:events';
import type { TextSink } from './cli-io.ts';

/** Writes `text`, waiting for 'drain' when a stream's buffer is full, so large exports do not pile up in memory. */
export async function writeChunk(sink: TextSink, text: string): Promise<void> {
  const accepted = sink.write(text);
  if (accepted === false && typeof (sink as Partial<EventEmitter>).once === 'function') {
    await once(sink as unknown as EventEmitter, 'drain');
  }
}
