/**
 * How long a direct call's result recording may wait, after its answer, for the next call's
 * write to join. Calls one after another from one client come well within it, so the result
 * and the next proposal commit together (one durable commit per call, not two); a client
 * that is done gets its result recorded this much later, still right after its answer.
 */
export const RESULT_JOIN_MS = 5;

/**
 * Results the gateway answered before recording them (see `forward` in call-tool.ts).
 * A recording is not started with the answer (digesting the result and its write are not
 * on the client's wait): it starts when the next call arrives (`startWaiting`, before that
 * call proposes, so both writes land in one group commit), or `RESULT_JOIN_MS` after it was
 * handed over, whichever is first. Then it is kept until it settles, so closing the gateway
 * waits for it before the store under it is closed. Each recording never rejects
 * (`runGranted` reports failures).
 */
export class PendingRecordings {
  /** Handed over, not started yet. */
  readonly #waiting: Array<() => Promise<void>> = [];
  readonly #pending = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;

  add(record: () => Promise<void>): void {
    this.#waiting.push(record);
    this.#timer ??= setTimeout(() => this.startWaiting(), RESULT_JOIN_MS);
  }

  /** Starts every recording handed over so far (a call is about to write: they join its commit). */
  startWaiting(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const record of this.#waiting.splice(0)) {
      const recorded = record();
      this.#pending.add(recorded);
      void recorded.finally(() => this.#pending.delete(recorded));
    }
  }

  /** Resolves once every recording added so far, and any added meanwhile, has settled. */
  async settled(): Promise<void> {
    this.startWaiting();
    while (this.#pending.size > 0) {
      await Promise.allSettled([...this.#pending]);
      this.startWaiting();
    }
  }
}
