import type { RequestEvents } from './request-events.ts';

export type Wake = 'event' | 'timeout' | 'aborted';

/**
 * Resolves on the first of: an in-process event about `requestId`, `ms` elapsed,
 * or `signal` aborted. Always cleans up its timer and subscription.
 */
export function waitForWake(events: RequestEvents, requestId: string, ms: number, signal: AbortSignal): Promise<Wake> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise<Wake>((resolve) => {
    const finish = (wake: Wake) => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      resolve(wake);
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), Math.max(0, ms));
    const unsubscribe = events.subscribe((event) => {
      if (event.requestId === requestId) finish('event');
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
