import type { DeliveredEvent, GateEvents } from './types.ts';

export type Wake = 'event' | 'timeout' | 'aborted';

/**
 * Resolves on the first of: an event `matches` (or a `resync`), `ms` elapsed, or
 * `signal` aborted. Always cleans up its timer and subscription. Callers re-read the
 * store after any wake: an event says "look again", never what to conclude.
 */
export function waitForEvent(
  events: Pick<GateEvents, 'subscribe'>,
  matches: (event: DeliveredEvent) => boolean,
  ms: number,
  signal?: AbortSignal | undefined,
): Promise<Wake> {
  if (signal?.aborted === true) return Promise.resolve('aborted');
  return new Promise<Wake>((resolve) => {
    const finish = (wake: Wake) => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(wake);
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), Math.max(0, ms));
    const unsubscribe = events.subscribe((event) => {
      if (event.type === 'resync' || matches(event)) finish('event');
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** True for every event that can change what a reader of approval request `requestId` sees. */
export function isAboutRequest(requestId: string): (event: DeliveredEvent) => boolean {
  return (event) => 'requestId' in event && event.requestId === requestId;
}
