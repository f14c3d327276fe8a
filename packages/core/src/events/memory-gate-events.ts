import type { DeliveredEvent, GateEvent, GateEventListener, GateEvents } from './types.ts';

/**
 * In-process event bus, the default. Listeners run in a microtask after `publish`
 * returns, each isolated: a listener that throws or rejects neither reaches the
 * operation that emitted nor stops the other listeners.
 */
export class MemoryGateEvents implements GateEvents {
  readonly #listeners = new Set<GateEventListener>();

  subscribe(listener: GateEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  publish(event: GateEvent): void {
    this.deliver(event);
  }

  /** Delivers to this process's listeners only; replica-aware buses call it for events from elsewhere. */
  deliver(event: DeliveredEvent): void {
    // Nobody listening (the common case on the dispatch path): no copy of the set.
    if (this.#listeners.size === 0) return;
    const listeners = [...this.#listeners];
    queueMicrotask(() => {
      for (const listener of listeners) {
        // Unsubscribed between publish and delivery: it asked for no more events.
        if (!this.#listeners.has(listener)) continue;
        try {
          const result = listener(event);
          if (result instanceof Promise) result.catch(() => undefined);
        } catch {
          // One broken listener (a closed stream, a failing webhook) must not stop the others.
        }
      }
    });
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
