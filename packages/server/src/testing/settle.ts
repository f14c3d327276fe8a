/**
 * Runs every pending callback and promise job but fires no timer: with memory stores and
 * `app.request` (no network), whatever a test started has either answered by then or is
 * waiting on a timer or an event.
 */
export const settleWithoutTimers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The promise's value if it settles without a timer firing, else 'pending'. */
export const settledOrPending = <T>(promise: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([promise, settleWithoutTimers().then(() => 'pending' as const)]);
