import type { Keyring } from '../token/keyring.ts';
import { verifyAuditCheckpoint } from '../token/audit-checkpoint.ts';
import { DEFAULT_CHECKPOINT_EVERY_RECORDS } from './checkpointing-audit-log.ts';
import type { AuditHead, AuditRecord } from './types.ts';

/**
 * How far back a checkpoint may sign. A writer reads the head and then appends the
 * checkpoint; on a shared store other replicas' records can land in between, so the
 * signed head is usually the record just before, and never far behind. Bounded so the
 * verifier keeps a fixed window of hashes, not the whole chain.
 */
export const CHECKPOINT_WINDOW = 4096;

/**
 * Default for `maxUnsignedTail`: one of CheckpointingAuditLog's default intervals (what
 * `serve` writes), no more. Every replica signs once the chain is an interval past the
 * newest checkpoint, so a longer tail means a checkpoint is missing (dropped, or never
 * written because the service crashed or could not sign), and a dropped last checkpoint
 * is caught whenever a record followed it. A verification racing a busy service can see
 * the few records appended while the next checkpoint is being written: verify again.
 */
export const DEFAULT_MAX_UNSIGNED_TAIL = DEFAULT_CHECKPOINT_EVERY_RECORDS;

export interface CheckpointOptions {
  /** Keys to check checkpoint signatures with (HS256 master secret or Ed25519 public key). */
  keyring: Keyring;
  /** Records allowed after the last signed head before verification fails `unsigned_tail`. */
  maxUnsignedTail?: number | undefined;
}

/** What the checkpoints cover, reported with a successful verification. */
export interface CheckpointSummary {
  /** Valid checkpoints seen. */
  count: number;
  /** Highest seq covered by a signature (or by a trusted `from`/`anchor`); 0 when none. */
  signedSeq: number;
  /** Records after `signedSeq`: nothing but an external anchor protects them. */
  unsignedTail: number;
}

export type CheckpointProblem = {
  reason: 'bad_checkpoint' | 'checkpoint_mismatch' | 'no_checkpoint' | 'unsigned_tail';
  message: string;
};

/**
 * Follows a chain the ChainVerifier has already linked and hashed, and checks each
 * `checkpoint` record: its signature holds and the head it signs is the chain's own
 * record at that seq. Because each hash covers everything before it, one valid
 * checkpoint at seq n pins records 1..n to the key.
 */
export class CheckpointTracker {
  readonly #keyring: Keyring;
  readonly #maxTail: number;
  // hashes[seq % WINDOW] with the seq it belongs to, so a stale slot is recognised.
  readonly #seqs = new Float64Array(CHECKPOINT_WINDOW).fill(-1);
  readonly #hashes: string[] = new Array<string>(CHECKPOINT_WINDOW);
  #count = 0;
  #signedSeq: number;
  #trustedSeq: number;

  constructor(opts: CheckpointOptions, from: AuditHead | undefined) {
    const max = opts.maxUnsignedTail ?? DEFAULT_MAX_UNSIGNED_TAIL;
    if (!Number.isSafeInteger(max) || max < 0) throw new TypeError('maxUnsignedTail must be a non-negative integer');
    this.#keyring = opts.keyring;
    this.#maxTail = max;
    this.#trustedSeq = from?.seq ?? 0;
    this.#signedSeq = this.#trustedSeq;
    if (from !== undefined && from.seq > 0) this.#remember(from.seq, from.hash);
  }

  #remember(seq: number, hash: string): void {
    const slot = seq % CHECKPOINT_WINDOW;
    this.#seqs[slot] = seq;
    this.#hashes[slot] = hash;
  }

  #hashAt(seq: number): string | undefined {
    const slot = seq % CHECKPOINT_WINDOW;
    return this.#seqs[slot] === seq ? this.#hashes[slot] : undefined;
  }

  /** Checks one record that already passed the chain checks. */
  push(record: AuditRecord): CheckpointProblem | undefined {
    if (record.type === 'checkpoint') {
      const problem = this.#check(record);
      if (problem !== undefined) return problem;
    }
    this.#remember(record.seq, record.hash);
    return undefined;
  }

  #check(record: AuditRecord): CheckpointProblem | undefined {
    const checked = verifyAuditCheckpoint(record.detail?.checkpoint, this.#keyring);
    if (!checked.ok) return { reason: 'bad_checkpoint', message: `${checked.reason}: ${checked.message}` };
    const { seq, hash } = checked.claims;
    if (seq >= record.seq) {
      return { reason: 'checkpoint_mismatch', message: `the checkpoint signs seq ${seq}, which is not before it` };
    }
    const actual = this.#hashAt(seq);
    if (actual === undefined) {
      return { reason: 'checkpoint_mismatch', message: `the checkpoint signs seq ${seq}, too far back to check` };
    }
    if (actual !== hash) {
      return { reason: 'checkpoint_mismatch', message: `the signed hash of seq ${seq} differs from the chain's: records up to it were rewritten` };
    }
    this.#count++;
    if (seq > this.#signedSeq) this.#signedSeq = seq;
    return undefined;
  }

  /** An anchor that matched the chain is as good as a signature up to its seq. */
  trust(seq: number): void {
    if (seq > this.#signedSeq) this.#signedSeq = seq;
    if (seq > this.#trustedSeq) this.#trustedSeq = seq;
  }

  /** The verdict once the chain has ended at `lastSeq`. */
  finish(lastSeq: number): { ok: true; summary: CheckpointSummary } | ({ ok: false } & CheckpointProblem) {
    const unsignedTail = Math.max(0, lastSeq - this.#signedSeq);
    if (this.#count === 0 && lastSeq > this.#trustedSeq) {
      return {
        ok: false,
        reason: 'no_checkpoint',
        message: `none of the ${lastSeq - this.#trustedSeq} records is covered by a signed checkpoint: the chain proves nothing against someone who can write the store`,
      };
    }
    if (unsignedTail > this.#maxTail) {
      return {
        ok: false,
        reason: 'unsigned_tail',
        message: `${unsignedTail} records follow the last signed checkpoint (seq ${this.#signedSeq}); at most ${this.#maxTail} are expected`,
      };
    }
    return { ok: true, summary: { count: this.#count, signedSeq: this.#signedSeq, unsignedTail } };
  }
}
