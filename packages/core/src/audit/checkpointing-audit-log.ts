import { type Clock, systemClock } from '../clock.ts';
import { signAuditCheckpoint } from '../token/audit-checkpoint.ts';
import type { Keyring } from '../token/keyring.ts';
import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from './types.ts';

/** A checkpoint at least every this many records (default). */
export const DEFAULT_CHECKPOINT_EVERY_RECORDS = 500;
/** And at least this often while records keep arriving (default). */
export const DEFAULT_CHECKPOINT_EVERY_MS = 30_000;

export interface CheckpointingOptions {
  /** The active key signs: Ed25519 (public-key verifiable) or HS256 (needs the master secret). */
  keyring: Keyring;
  clock?: Clock | undefined;
  /** Sign the head once it is this many records past the last checkpoint. */
  everyRecords?: number | undefined;
  /** Sign a head that is not yet signed this often; 0 turns the timer off. */
  everyMs?: number | undefined;
  /**
   * A checkpoint that could not be written (store down, no active key). The append
   * that triggered it has succeeded, so it is reported here, not thrown; the next
   * trigger tries again, and the verifier flags a tail that grew too long.
   */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * Wraps any AuditLog and appends signed `checkpoint` records of the chain head: every
 * `everyRecords` records, every `everyMs` while unsigned records exist, and on
 * `close()`. A checkpoint at seq n pins records 1..n to the key, so someone who can
 * write the store but has no key cannot rewrite them and recompute the hashes without
 * `audit verify --key-file` noticing. Records after the last checkpoint are protected
 * only by an anchor kept elsewhere.
 */
export class CheckpointingAuditLog implements AuditLog {
  readonly #inner: AuditLog;
  readonly #keyring: Keyring;
  readonly #clock: Clock;
  readonly #everyRecords: number;
  readonly #onError: (error: unknown) => void;
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  /** Seq of the last checkpoint record this process wrote or saw at the head. */
  #lastCheckpointSeq = 0;
  #inFlight: Promise<AuditRecord | undefined> | undefined;
  #closed = false;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(inner: AuditLog, opts: CheckpointingOptions) {
    const everyRecords = opts.everyRecords ?? DEFAULT_CHECKPOINT_EVERY_RECORDS;
    const everyMs = opts.everyMs ?? DEFAULT_CHECKPOINT_EVERY_MS;
    if (!Number.isSafeInteger(everyRecords) || everyRecords < 1) throw new TypeError('everyRecords must be a positive integer');
    if (!Number.isSafeInteger(everyMs) || everyMs < 0) throw new TypeError('everyMs must be a non-negative integer');
    this.#inner = inner;
    this.#keyring = opts.keyring;
    this.#clock = opts.clock ?? systemClock;
    this.#everyRecords = everyRecords;
    this.#onError = opts.onError ?? (() => undefined);
    // Records a ledger transaction appends to the wrapped log (one commit with the ledger
    // change) never pass through `append`; they count towards the next checkpoint all the same.
    this.#unsubscribe = inner.onLedgerAppend?.((records) => {
      const last = records.at(-1);
      if (last !== undefined) this.#afterAppend(last.seq, false);
    });
    if (everyMs > 0) {
      this.#timer = setInterval(() => void this.#checkpointReporting(), everyMs);
      // A pending checkpoint must not keep a process alive that is otherwise done.
      this.#timer.unref?.();
    }
  }

  /** The store's own log: a ledger appending to it in its transactions appends to this chain. */
  get wrapped(): AuditLog {
    return this.#inner;
  }

  async append(event: AuditEvent): Promise<AuditRecord> {
    const record = await this.#inner.append(event);
    await this.#afterAppend(record.seq, true);
    return record;
  }

  onLedgerAppend(listener: (records: readonly AuditRecord[]) => void): () => void {
    return this.#inner.onLedgerAppend?.(listener) ?? (() => undefined);
  }

  #afterAppend(seq: number, wait: boolean): Promise<void> {
    if (seq - this.#lastCheckpointSeq < this.#everyRecords || this.#closed) return Promise.resolve();
    const written = this.#checkpointReporting();
    return wait ? written : Promise.resolve();
  }

  read(opts?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]> {
    return this.#inner.read(opts);
  }

  head(): Promise<AuditHead | undefined> {
    return this.#inner.head();
  }

  /**
   * Signs the current head now, unless the log is empty or already ends in a
   * checkpoint. Returns the checkpoint record written, if any. Throws what the store
   * or the keyring throws.
   */
  checkpoint(): Promise<AuditRecord | undefined> {
    // One at a time: a second caller waits for the same checkpoint instead of signing twice.
    this.#inFlight ??= this.#write().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** Stops the timer and writes a last checkpoint, then closes the wrapped log (if it can be closed). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#unsubscribe?.();
    try {
      await this.checkpoint();
    } finally {
      await this.#inner.close?.();
    }
  }

  async #checkpointReporting(): Promise<void> {
    try {
      await this.checkpoint();
    } catch (error) {
      this.#onError(error);
    }
  }

  async #write(): Promise<AuditRecord | undefined> {
    const head = await this.#inner.head();
    if (head === undefined) return undefined;
    const [last] = await this.#inner.read({ afterSeq: head.seq - 1, limit: 1 });
    if (last?.type === 'checkpoint') {
      this.#lastCheckpointSeq = Math.max(this.#lastCheckpointSeq, last.seq);
      return undefined;
    }
    const at = Math.floor(this.#clock());
    // On a shared store another replica may append between head() and append(); the
    // checkpoint then signs a head a few records back, which the verifier accepts.
    const checkpoint = signAuditCheckpoint(head, at, this.#keyring);
    const record = await this.#inner.append({ type: 'checkpoint', at, actor: 'system', detail: { checkpoint } });
    this.#lastCheckpointSeq = Math.max(this.#lastCheckpointSeq, record.seq);
    return record;
  }
}
