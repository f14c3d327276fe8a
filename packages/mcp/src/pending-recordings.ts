/**
 * Results the gateway answered before recording them (see `forward` in call-tool.ts). Each
 * recording is started on the loop's next turn, once the answer has been written (the
 * answer leaves in the microtasks of the turn that got the result), so digesting the result
 * and its write are not on the client's wait; then kept until it settles, so closing the
 * gateway waits for it before the store under it is closed. Each recording never rejects
 * (`runGranted` reports failures).
 */
export class PendingRecordings {
  /** Handed over, not started yet (this turn's answers are still being written). */
  readonly #waiting: Array<() => Promise<void>> = [];
  readonly #pending = new Set<Promise<void>>();
  #scheduled = false;

  add(record: () => Promise<void>): void {
    this.#waiting.push(record);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#startWaiting());
  }

  /** Resolves once every recording added so far, and any added meanwhile, has settled. */
  async settled(): Promise<void> {
    this.#startWaiting();
    while (this.#pending.size > 0) {
      await Promise.allSettled([...this.#pending]);
      this.#startWaiting();
    }
  }

  #startWaiting(): void {
    this.#scheduled = false;
    for (const record of this.#waiting.splice(0)) {
      const recorded = record();
      this.#pending.add(recorded);
      void recorded.finally(() => this.#pending.delete(recorded));
    }
  }
}
