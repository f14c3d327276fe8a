import { fstatSync, openSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Commits before the worker starts: a store that writes little never pays for a thread. */
export const DEFAULT_START_AFTER_COMMITS = 200;
/**
 * WAL frames not yet copied back at which the worker copies them: below SQLite's own
 * autocheckpoint mark (1,000 frames, left as it is), so the loop's checkpoint finds about
 * a third left, and rarely enough that the worker adds about one checkpoint (two fsyncs)
 * per ~1,000 frames, not one per look (which, measured, added 6% to the fsyncs at 1 client
 * and would multiply them on a lightly used store).
 */
export const DEFAULT_CHECKPOINT_AT_FRAMES = 640;

/**
 * The longest the worker sleeps without looking, while commits come: a look is due when
 * the loop signals it, this only bounds how late a look comes when commits wrote more
 * frames each than the worker expected.
 */
const LONGEST_SLEEP_MS = 160;

// Slots of the shared Int32Array: commits so far (written by the loop), stop flag,
// checkpoints run and looks at the WAL (written by the worker), the commit count at which
// the worker wants to look again (written by the worker), and the wake-up counter the
// worker sleeps on (bumped by the loop when that count is reached, and to stop it).
const COMMITS = 0;
const STOP = 1;
const RUNS = 2;
const LOOKS = 3;
const LOOK_AT = 4;
const WAKE = 5;
const SLOTS = 6;

// The worker, as a CommonJS script (eval) so it loads the same way from src/*.ts and dist/*.js.
// `mode=rw`: it never creates a database, so a file deleted under the store is not recreated
// empty by the checkpointer (the loop's FileIdentityGuard reports the loss).
// How far the WAL is ahead of the database file comes from the WAL-index header in the
// -shm file (SQLite's file format, native byte order): mxFrame, the last valid frame, at
// byte 16; nBackfill, the frames already copied back, at byte 96. One pread, no lock: a
// stale read only moves a checkpoint by one look. PASSIVE never waits for a lock and never
// holds up the writer: it copies the frames no reader needs and returns. The -shm is read
// through a descriptor the worker must never close (see shmDescriptor).
// It does not poll: after each look it works out how many more commits, at the most frames
// per commit seen since its last look, will bring the WAL to the mark, and sleeps until the
// loop signals that count (one futex wake per look, not a wake every few milliseconds
// beside every call). Commit counts wrap with the Int32 slot: compared by difference.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const { readSync } = require('node:fs');
const state = new Int32Array(workerData.state);
const header = new Uint32Array(34);
const shm = workerData.shmFd;
const atFrames = workerData.atFrames;
let db;
try {
  db = new DatabaseSync(new URL(workerData.url), { timeout: 0 });
  db.exec('PRAGMA synchronous = FULL');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  // The WAL's frames still to copy, or undefined when the header cannot be read.
  const pendingFrames = () => {
    if (readSync(shm, header, 0, 136, 0) < 136) return undefined;
    const last = header[4];
    const copied = header[24];
    // The writer rewound the WAL since the last copy: every frame in it is new.
    return last >= copied ? last - copied : last;
  };
  // A first look at once: commits made while the thread was starting (all of a short burst)
  // would otherwise never be looked at until the next ones.
  let lookedAt = Atomics.load(state, ${COMMITS}) - 1;
  let framesThen = 0;
  let framesPerCommit = 1;
  while (Atomics.load(state, ${STOP}) === 0) {
    const wake = Atomics.load(state, ${WAKE});
    const commits = Atomics.load(state, ${COMMITS});
    const due = ((commits - Atomics.load(state, ${LOOK_AT})) | 0) >= 0;
    if (!due) {
      const slept = Atomics.wait(state, ${WAKE}, wake, ${LONGEST_SLEEP_MS});
      // Woken by the loop (or the count moved meanwhile): look. Slept it out: look only if anything was committed.
      if (slept === 'timed-out' && Atomics.load(state, ${COMMITS}) === lookedAt) continue;
      if (Atomics.load(state, ${STOP}) !== 0) break;
    }
    const now = Atomics.load(state, ${COMMITS});
    Atomics.add(state, ${LOOKS}, 1);
    let pending = pendingFrames();
    if (pending === undefined) continue;
    const since = (now - lookedAt) | 0;
    // Frames per commit since the last look: the WAL grew by that much (unless it was rewound meanwhile).
    if (since > 0 && pending > framesThen) framesPerCommit = Math.max(1, Math.ceil((pending - framesThen) / since));
    if (pending >= atFrames) {
      try {
        checkpoint.get();
        Atomics.add(state, ${RUNS}, 1);
      } catch {
        // busy or I/O: the next look, or the loop's own autocheckpoint, tries again
      }
      pending = pendingFrames() ?? pending;
    }
    lookedAt = now;
    framesThen = pending;
    // Three quarters of the way to the mark, so larger commits than these are seen before the
    // loop's own mark; past it (a reader kept frames from being copied), a quarter mark later.
    const room = atFrames - pending;
    const frames = room > 0 ? (room * 3) / 4 : atFrames / 4;
    Atomics.store(state, ${LOOK_AT}, (now + Math.max(1, Math.floor(frames / framesPerCommit))) | 0);
  }
} finally {
  db?.close();
}
`;

/**
 * Read-only descriptors of -shm files, one per file (device and inode), opened on first
 * use and NEVER closed. POSIX drops every fcntl lock a process holds on a file when the
 * process closes ANY descriptor of that file, and SQLite keeps its WAL-index locks on the
 * -shm: the lock every connection holds while open (whoever can take it exclusively
 * believes it is alone and resets the index), readers' marks (which frames a checkpoint
 * may overwrite) and the write lock. Closing a descriptor of our own when a worker exits
 * (every store close, or a worker that failed while the store runs on) would leave this
 * process's connections without those locks while they still rely on them, and another
 * process sharing the file could restart the WAL under an open read or write beside an
 * open write (sqlite.org/howtocorrupt.html §2.2). SQLite's own connections share one
 * descriptor per file for the same reason. Bounded by the -shm files this process
 * checkpointed; an unlinked one costs a descriptor until exit.
 */
const SHM_DESCRIPTORS = new Map<string, number>();

function shmDescriptor(shmPath: string): number {
  // stat, not open: opening a second descriptor just to look would be one more to keep.
  const seen = statSync(shmPath);
  const known = SHM_DESCRIPTORS.get(`${seen.dev}:${seen.ino}`);
  if (known !== undefined) return known;
  const fd = openSync(shmPath, 'r');
  const opened = fstatSync(fd);
  // Kept under the file it opened (replaced in between: still never closed).
  const key = `${opened.dev}:${opened.ino}`;
  if (!SHM_DESCRIPTORS.has(key)) SHM_DESCRIPTORS.set(key, fd);
  return fd;
}

/**
 * Copies the WAL back into the database file on a worker thread (its own connection, a
 * PASSIVE checkpoint once `atFrames` frames wait to be copied), so that the checkpoint
 * SQLite runs inside a COMMIT on the event loop every ~1,000 WAL frames (wal_autocheckpoint,
 * left as it is) finds a fraction of them left to copy. Measured here:
 * a 1,000-frame checkpoint on the loop takes 1–9 ms (pages written to the database file,
 * two fsyncs), every ~100 round trips at 1 client, and no request is served meanwhile.
 *
 * Durability does not change: each COMMIT is fsynced in the WAL before anyone hears of
 * it; a checkpoint syncs the WAL before copying and only moves committed pages, which
 * SQLite does safely beside a writer. The loop's autocheckpoint stays the one that lets
 * the WAL rewind, and the fallback if the worker falls behind, fails or is gone.
 *
 * Started lazily after `startAfterCommits` commits; `noteCommit` is one shared-memory
 * store per commit (no message, no system call), and a wake-up (one futex call) only at
 * the commit the worker asked to be woken at: a few per checkpoint, not one every few
 * milliseconds.
 */
export class BackgroundCheckpointer {
  readonly #path: string;
  readonly #state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  readonly #startAfterCommits: number;
  readonly #atFrames: number;
  #commits = 0;
  #worker: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  #stopped = false;
  #failed = false;

  constructor(path: string, options: { startAfterCommits?: number | undefined; atFrames?: number | undefined } = {}) {
    this.#path = path;
    this.#startAfterCommits = options.startAfterCommits ?? DEFAULT_START_AFTER_COMMITS;
    this.#atFrames = options.atFrames ?? DEFAULT_CHECKPOINT_AT_FRAMES;
  }

  /** Checkpoints the worker has run so far. */
  get runs(): number {
    return Atomics.load(this.#state, RUNS);
  }

  /** Times the worker has read the WAL's progress so far (tests: it looks when due, it does not poll). */
  get looks(): number {
    return Atomics.load(this.#state, LOOKS);
  }

  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** The worker exited without being asked to (its connection could not open, or it crashed); none is started again. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Called after each COMMIT on the loop: a shared-memory store, and a wake-up only when the worker asked for this count. */
  noteCommit(): void {
    this.#commits++;
    if (this.#worker !== undefined) {
      const commits = this.#commits | 0;
      Atomics.store(this.#state, COMMITS, commits);
      if (commits === Atomics.load(this.#state, LOOK_AT)) this.#wake();
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
    this.#wake();
    return this.#exited;
  }

  #wake(): void {
    Atomics.add(this.#state, WAKE, 1);
    Atomics.notify(this.#state, WAKE);
  }

  #start(): void {
    Atomics.store(this.#state, COMMITS, this.#commits | 0);
    const url = pathToFileURL(this.#path);
    url.searchParams.set('mode', 'rw');
    // Opened here, on the thread that keeps it: descriptors are the process's, so the worker reads it as its own.
    const shmFd = shmDescriptor(`${this.#path}-shm`);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url: url.href, shmFd, state: this.#state.buffer, atFrames: this.#atFrames },
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
