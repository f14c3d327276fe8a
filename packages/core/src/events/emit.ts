import type { GateEvent, GateEvents } from './types.ts';

/**
 * Publishes `event` and swallows anything a bus implementation throws: an event is
 * a notification about a committed change, so failing to send one must never turn
 * that change into a reported failure. Call it only after the store has committed.
 */
export function emit(events: GateEvents, event: GateEvent): void {
  try {
    events.publish(event);
  } catch {
    // Waiters fall back to re-reading the store; the operation's outcome stands.
  }
}
