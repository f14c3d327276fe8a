/** One queued write: a synchronous body and the promise waiting for its committed outcome. */
export interface WriteJob {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Default cap on writes per transaction: bounds how long one batch holds the event loop and the write lock. */
export const DEFAULT_MAX_BATCH = 256;

/**
 * Collects writes submitted while the current turn of the event loop runs and hands
 * them, in submission order, to `flush` in batches of at most `maxBatch`.
 *
 * The flush runs on `setImmediate`, not on a microtask: callers resuming after the
 * previous batch's commit reach us through several promise hops, and all of those
 * drain before the check phase, so concurrent callers land in the same batch.
 */
export class WriteQueue {
  readonly #flush: (batch: WriteJob[]) => void;
  readonly #maxBatch: number;
  #jobs: WriteJob[] = [];
  #scheduled: ReturnType<typeof setImmediate> | undefined;
  #paused = false;

  constructor(flush: (batch: WriteJob[]) => void, maxBatch = DEFAULT_MAX_BATCH) {
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError('maxBatch must be a positive integer');
    this.#flush = flush;
    this.#maxBatch = maxBatch;
  }

  enqueue(run: () => unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#jobs.push({ run, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Holds queued writes back (they keep collecting) until `resume`: while the previous
   * batch's fsync runs off the loop, the next batch grows instead of committing alone.
   */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    if (this.#jobs.length > 0) this.#schedule();
  }

  /** Flushes everything queued now, synchronously, paused or not (used before closing). */
  drain(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    while (this.#jobs.length > 0) this.#flushOne();
  }

  #schedule(): void {
    if (this.#paused) return;
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      if (this.#paused) return;
      this.#flushOne();
      // Whatever is left over the cap goes next turn, so reads queued meanwhile get a go.
      if (this.#jobs.length > 0) this.#schedule();
    });
  }

  #flushOne(): void {
    const batch = this.#jobs.length <= this.#maxBatch ? this.#jobs : this.#jobs.slice(0, this.#maxBatch);
    this.#jobs = batch === this.#jobs ? [] : this.#jobs.slice(this.#maxBatch);
    try {
      this.#flush(batch);
    } catch (error) {
      // `flush` settles every job itself; this only guards against a bug leaving a
      // caller waiting forever. Settling a settled promise again is a no-op.
      for (const job of batch) job.reject(error);
    }
  }
}
