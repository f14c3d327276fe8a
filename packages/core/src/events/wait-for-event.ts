import type { DeliveredEvent, GateEvents } from './types.ts';

export type Wake = 'event' | 'timeout' | 'aborted';

/**
 * A standing subscription for a waiter that re-reads the store in a loop. Subscribe
 * BEFORE the first read: an event that arrives between a read and the next `next()`
 * is remembered, so a decision committed right after the read is never slept through.
 */
export interface EventWatch {
  /** Resolves on the first of: a matching event (or one that arrived since the last call), `ms` elapsed, `signal` aborted. */
  next(ms: number, signal?: AbortSignal | undefined): Promise<Wake>;
  /** Unsubscribes; call it when the wait is over. */
  close(): void;
}

/** Watches for events `matches` accepts, and for every `resync` (events may have been missed). */
export function watchEvents(events: Pick<GateEvents, 'subscribe'>, matches: (event: DeliveredEvent) => boolean): EventWatch {
  let missed = false;
  let wake: ((wake: Wake) => void) | undefined;
  const unsubscribe = events.subscribe((event) => {
    if (event.type !== 'resync' && !matches(event)) return;
    if (wake === undefined) missed = true;
    else wake('event');
  });
  return {
    next(ms, signal) {
      if (missed) {
        missed = false;
        return Promise.resolve('event');
      }
      if (signal?.aborted === true) return Promise.resolve('aborted');
      return new Promise<Wake>((resolve) => {
        const finish = (result: Wake) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          wake = undefined;
          resolve(result);
        };
        const onAbort = () => finish('aborted');
        const timer = setTimeout(() => finish('timeout'), Math.max(0, ms));
        wake = finish;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    close: unsubscribe,
  };
}

/**
 * One wait: resolves on the first of a matching event (or a `resync`), `ms` elapsed,
 * or `signal` aborted, and cleans up. Callers re-read the store after any wake: an
 * event says "look again", never what to conclude. Loops use `watchEvents`.
 */
export async function waitForEvent(
  events: Pick<GateEvents, 'subscribe'>,
  matches: (event: DeliveredEvent) => boolean,
  ms: number,
  signal?: AbortSignal | undefined,
): Promise<Wake> {
  const watch = watchEvents(events, matches);
  try {
    return await watch.next(ms, signal);
  } finally {
    watch.close();
  }
}

/** True for every event that can change what a reader of approval request `requestId` sees. */
export function isAboutRequest(requestId: string): (event: DeliveredEvent) => boolean {
  return (event) => 'requestId' in event && event.requestId === requestId;
}
