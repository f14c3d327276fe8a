/** One queued item and the promise waiting for its outcome. */
export interface BatchJob<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Default cap on items per batch: bounds one transaction's size and lock hold time. */
export const DEFAULT_MAX_BATCH = 256;

/**
 * Group commit for an async backend: at most one batch is in flight; items submitted
 * meanwhile wait and go together in the next one, in submission order, at most
 * `maxBatch` at a time. `run` must settle every job of its batch.
 *
 * A batch starts on `setImmediate`, not on a microtask, both at first and after the
 * previous batch: callers resuming from the previous batch reach us through several
 * promise hops, and all of those drain before the check phase, so they join the same
 * batch instead of trickling into batches of one.
 */
export class AppendBatcher<I, O> {
  readonly #run: (batch: BatchJob<I, O>[]) => Promise<void>;
  readonly #maxBatch: number;
  #jobs: BatchJob<I, O>[] = [];
  #busy = false;

  constructor(run: (batch: BatchJob<I, O>[]) => Promise<void>, maxBatch = DEFAULT_MAX_BATCH) {
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError('maxBatch must be a positive integer');
    this.#run = run;
    this.#maxBatch = maxBatch;
  }

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#jobs.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#busy) return;
    this.#busy = true;
    setImmediate(() => void this.#runNext());
  }

  async #runNext(): Promise<void> {
    const batch = this.#jobs.slice(0, this.#maxBatch);
    this.#jobs = this.#jobs.slice(batch.length);
    try {
      await this.#run(batch);
    } catch (error) {
      // `run` settles its jobs itself; this only keeps a bug from leaving callers
      // waiting forever. Settling a settled promise again is a no-op.
      for (const job of batch) job.reject(error);
    }
    this.#busy = false;
    if (this.#jobs.length > 0) this.#schedule();
  }
}
