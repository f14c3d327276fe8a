/** Something happened to an approval request in THIS process. */
export interface RequestEvent {
  type: 'request.created' | 'request.decided';
  requestId: string;
}

export type RequestEventListener = (event: RequestEvent) => void;

/**
 * In-process notifications about approval requests. Only a fast path: waiters also
 * re-read the ledger on an interval, because a decision made through another
 * replica never reaches this bus.
 */
export class RequestEvents {
  readonly #listeners = new Set<RequestEventListener>();

  subscribe(listener: RequestEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit(event: RequestEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener (a closed stream, a failing webhook) must not stop the others.
      }
    }
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
