import { type DeliveredEvent, watchEvents } from '@countersign/core/events';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';

export interface FollowOptions {
  /** The version the page was rendered with. */
  since: string;
  /** The version now, read from the store (throws when the store is unavailable). */
  read: () => Promise<string>;
  /** Gate events that may change the version: they wake the stream before the next poll. */
  wakesOn: (event: DeliveredEvent) => boolean;
}

/**
 * A server-sent event stream for a page's script: `changed` (then the end) once `read()`
 * differs from `since`, `unavailable` when the store cannot be read. Woken by the gate's
 * events, with a store re-read at the poll interval for changes made on other replicas
 * and for expiry (a matter of time, no event); a heartbeat comment at once and then while idle.
 */
export function followVersion(c: Context<AppEnv>, services: Services, options: FollowOptions): Response {
  const watch = watchEvents(services.gate.events, options.wakesOn);
  const signal = AbortSignal.any([c.req.raw.signal, services.closing]);
  return streamSSE(c, async (stream) => {
    const aborted = new AbortController();
    stream.onAbort(() => aborted.abort());
    const stop = AbortSignal.any([signal, aborted.signal]);
    // A heartbeat at once: a client (approvals watch) knows the stream is live from its first bytes
    // and can take a silence of a few heartbeats as a lost connection.
    let lastWrite = 0;
    try {
      for (;;) {
        let version: string;
        try {
          version = await options.read();
        } catch {
          await stream.writeSSE({ event: 'unavailable', data: 'store_unavailable' });
          return;
        }
        if (version !== options.since) {
          await stream.writeSSE({ event: 'changed', data: version });
          return;
        }
        if (Date.now() - lastWrite >= services.tuning.heartbeatMs) {
          await stream.write(': heartbeat\n\n');
          lastWrite = Date.now();
        }
        const untilHeartbeat = services.tuning.heartbeatMs - (Date.now() - lastWrite);
        const wake = await watch.next(Math.max(0, Math.min(services.tuning.pollIntervalMs, untilHeartbeat)), stop);
        if (wake === 'aborted' || stream.aborted || stream.closed) return;
      }
    } finally {
      watch.close();
    }
  });
}
