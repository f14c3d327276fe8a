import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Commits before the worker starts: a store that writes little never pays for a thread. */
export const DEFAULT_START_AFTER_COMMITS = 200;
/** How often the worker looks for new commits to copy back. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 20;

// Slots of the shared Int32Array: commits so far (written by the loop), stop flag,
// checkpoints run (written by the worker).
const COMMITS = 0;
const STOP = 1;
const RUNS = 2;

// The worker, as a CommonJS script (eval) so it loads the same way from src/*.ts and dist/*.js.
// `mode=rw`: it never creates a database, so a file deleted under the store is not recreated
// empty by the checkpointer (the loop's FileIdentityGuard reports the loss).
// PASSIVE never waits for a lock and never holds up the writer: it copies the frames no
// reader needs and returns. When the writer committed meanwhile it goes again at once
// (a few times), to leave as little as possible for the loop's own autocheckpoint.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const state = new Int32Array(workerData.state);
const db = new DatabaseSync(new URL(workerData.url), { timeout: 0 });
try {
  db.exec('PRAGMA synchronous = FULL');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  let seen = Atomics.load(state, ${COMMITS});
  while (Atomics.load(state, ${STOP}) === 0) {
    Atomics.wait(state, ${STOP}, 0, workerData.intervalMs);
    const commits = Atomics.load(state, ${COMMITS});
    if (commits === seen || Atomics.load(state, ${STOP}) !== 0) continue;
    seen = commits;
    for (let i = 0; i < 4; i++) {
      let row;
      try {
        row = checkpoint.get();
      } catch {
        break; // busy or I/O: the next round, or the loop's own autocheckpoint, tries again
      }
      Atomics.add(state, ${RUNS}, 1);
      if (row.log === row.checkpointed) break;
    }
  }
} finally {
  db.close();
}
`;

/**
 * Copies the WAL back into the database file on a worker thread (its own connection,
 * PASSIVE checkpoints every `intervalMs` while there are new commits), so that the
 * checkpoint SQLite runs inside a COMMIT on the event loop every ~1,000 WAL frames
 * (wal_autocheckpoint, left as it is) finds almost nothing left to copy. Measured here:
 * a 1,000-frame checkpoint on the loop takes 1–9 ms (pages written to the database file,
 * two fsyncs), every ~100 round trips at 1 client, and no request is served meanwhile.
 *
 * Durability does not change: each COMMIT is fsynced in the WAL before anyone hears of
 * it; a checkpoint syncs the WAL before copying and only moves committed pages, which
 * SQLite does safely beside a writer. The loop's autocheckpoint stays the one that lets
 * the WAL rewind, and the fallback if the worker falls behind, fails or is gone.
 *
 * Started lazily after `startAfterCommits` commits; `noteCommit` is one shared-memory
 * store per commit (no message, no system call).
 */
export class BackgroundCheckpointer {
  readonly #path: string;
  readonly #state = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  readonly #startAfterCommits: number;
  readonly #intervalMs: number;
  #commits = 0;
  #worker: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  #stopped = false;
  #failed = false;

  constructor(path: string, options: { startAfterCommits?: number | undefined; intervalMs?: number | undefined } = {}) {
    this.#path = path;
    this.#startAfterCommits = options.startAfterCommits ?? DEFAULT_START_AFTER_COMMITS;
    this.#intervalMs = options.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
  }

  /** Checkpoints the worker has run so far. */
  get runs(): number {
    return Atomics.load(this.#state, RUNS);
  }

  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** The worker exited without being asked to (its connection could not open, or it crashed); none is started again. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Called after each COMMIT on the loop. */
  noteCommit(): void {
    this.#commits++;
    if (this.#worker !== undefined) {
      Atomics.store(this.#state, COMMITS, this.#commits);
    } else if (!this.#stopped && !this.#failed && this.#commits >= this.#startAfterCommits) {
      try {
        this.#start();
      } catch {
        // No thread to be had (resource limits): the loop checkpoints as it always did.
        this.#failed = true;
      }
    }
  }

  /** Asks the worker to finish (a checkpoint under way completes first) and close its connection; resolves once it has. */
  stop(): Promise<void> {
    this.#stopped = true;
    // Unref'd while it runs; its exit is now awaited, so it holds the process until then.
    this.#worker?.ref();
    Atomics.store(this.#state, STOP, 1);
    Atomics.notify(this.#state, STOP);
    return this.#exited;
  }

  #start(): void {
    Atomics.store(this.#state, COMMITS, this.#commits);
    const url = pathToFileURL(this.#path);
    url.searchParams.set('mode', 'rw');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url: url.href, state: this.#state.buffer, intervalMs: this.#intervalMs },
    });
    // A forgotten close must not keep the process alive.
    worker.unref();
    this.#worker = worker;
    this.#exited = new Promise((resolve) => {
      worker.once('exit', () => {
        this.#worker = undefined;
        if (!this.#stopped) this.#failed = true;
        resolve();
      });
    });
    // An error is followed by 'exit'; the loop's own autocheckpoint carries on meanwhile.
    worker.on('error', () => {});
  }
}
