import { GENESIS_HASH, hashValidatedRecord } from './chain.ts';
import { type CheckpointOptions, type CheckpointSummary, CheckpointTracker } from './checkpoint-tracker.ts';
import { chainedRecordProblem, isHexSha256 } from './record-shape.ts';
import type { AuditHead, AuditRecord } from './types.ts';

export type ChainFailureReason =
  /** The first record is not seq 1 with prevHash GENESIS_HASH (and no `from` was given). */
  | 'bad_genesis'
  /** A record's seq is not its predecessor's seq + 1 (dropped, reordered, duplicated or inserted). */
  | 'seq_gap'
  /** A record's prevHash is not its predecessor's hash. */
  | 'prev_hash_mismatch'
  /** A record's hash does not match its content: the record was edited. */
  | 'hash_mismatch'
  /** The chain ends before the anchor's seq: records were dropped from the end. */
  | 'truncated'
  /** The record at the anchor's seq has another hash. */
  | 'anchor_mismatch'
  /** With a key: a checkpoint record is malformed or its signature does not verify. */
  | 'bad_checkpoint'
  /** With a key: a checkpoint signs a head the chain does not have (records before it were rewritten). */
  | 'checkpoint_mismatch'
  /** With a key: the chain has records but no signed checkpoint at all. */
  | 'no_checkpoint'
  /** With a key: more records follow the last checkpoint than `maxUnsignedTail` allows. */
  | 'unsigned_tail'
  /** A record is not a well-formed AuditRecord (missing, ill-typed or unknown fields). */
  | 'malformed';

export interface ChainFailure {
  ok: false;
  /** 0-based position in the input; for `truncated`, the number of records read. */
  index: number;
  /** The offending record's seq when it has a valid one (for `truncated`: the first missing seq). */
  seq: number | undefined;
  reason: ChainFailureReason;
  message: string;
}

export type ChainVerification =
  | {
      ok: true;
      count: number;
      head?: AuditHead;
      /** Present when `checkpoints` was given: what the signatures cover. */
      checkpoints?: CheckpointSummary;
    }
  | ChainFailure;

export interface VerifyChainOptions {
  /**
   * The expected last record, taken from somewhere the log's writer cannot rewrite
   * (another store, a printed receipt). Without it, records dropped from the END of
   * a log are undetectable: the shorter chain is still a valid chain. With it, a
   * shorter chain fails `truncated`, and a chain whose record at the anchor's seq has
   * another hash fails `anchor_mismatch`. A chain that has grown past the anchor is
   * fine: a live log keeps growing after the anchor was taken.
   */
  anchor?: AuditHead | undefined;
  /** The trusted record just before the first input record, to verify a suffix of a log. */
  from?: AuditHead | undefined;
  /**
   * Check signed `checkpoint` records with these keys. Without a key the chain only
   * proves internal consistency: anyone who can write the store can rewrite a record
   * and recompute every later hash. With one, every checkpoint must verify and sign
   * the chain's own head at its seq, the chain must hold at least one, and at most
   * `maxUnsignedTail` records may follow the last one.
   */
  checkpoints?: CheckpointOptions | undefined;
}

/**
 * Incremental verifier: push records in order, then `finish()`. Lets callers verify
 * a stream (a JSON-lines file, pages of a SQL table) without holding it in memory.
 * Never throws on bad records; after the first failure every call returns it.
 */
export class ChainVerifier {
  #prevSeq: number;
  #prevHash: string;
  #fromGenesis: boolean;
  #anchor: AuditHead | undefined;
  #count = 0;
  #failure: ChainFailure | undefined;
  #checkpoints: CheckpointTracker | undefined;

  constructor(opts: VerifyChainOptions = {}) {
    const { from, anchor } = opts;
    if (from !== undefined) checkHead(from, 'from', 0);
    if (anchor !== undefined) checkHead(anchor, 'anchor', from?.seq ?? 0);
    this.#prevSeq = from?.seq ?? 0;
    this.#prevHash = from?.hash ?? GENESIS_HASH;
    this.#fromGenesis = from === undefined || from.seq === 0;
    this.#anchor = anchor;
    if (opts.checkpoints !== undefined) this.#checkpoints = new CheckpointTracker(opts.checkpoints, from);
  }

  /** Checks the next record; returns the failure, or undefined while the chain holds. */
  push(value: unknown): ChainFailure | undefined {
    if (this.#failure !== undefined) return this.#failure;
    const index = this.#count++;
    let failure: ChainFailure | undefined;
    try {
      failure = this.#check(value, index);
    } catch (error) {
      // Plain data cannot throw here; exotic objects (throwing getters, proxies) can.
      failure = fail(index, undefined, 'malformed', `record could not be read: ${String(error)}`);
    }
    this.#failure = failure;
    return failure;
  }

  #check(value: unknown, index: number): ChainFailure | undefined {
    const problem = chainedRecordProblem(value);
    if (problem !== undefined) {
      const seq = (value as { seq?: unknown } | null)?.seq;
      return fail(index, Number.isSafeInteger(seq) && (seq as number) >= 1 ? (seq as number) : undefined, 'malformed', problem);
    }
    const record = value as AuditRecord;
    const expectedSeq = this.#prevSeq + 1;
    if (this.#prevSeq === 0 && this.#fromGenesis && (record.seq !== 1 || record.prevHash !== GENESIS_HASH)) {
      return fail(index, record.seq, 'bad_genesis', 'the first record must have seq 1 and the genesis prevHash');
    }
    if (record.seq !== expectedSeq) {
      return fail(index, record.seq, 'seq_gap', `expected seq ${expectedSeq}, found ${record.seq}`);
    }
    if (record.prevHash !== this.#prevHash) {
      return fail(index, record.seq, 'prev_hash_mismatch', `prevHash does not match the hash of seq ${this.#prevSeq}`);
    }
    if (hashValidatedRecord(record) !== record.hash) {
      return fail(index, record.seq, 'hash_mismatch', 'hash does not match the record content');
    }
    const anchor = this.#anchor;
    if (anchor !== undefined && record.seq === anchor.seq) {
      if (record.hash !== anchor.hash) {
        return fail(index, record.seq, 'anchor_mismatch', `hash of seq ${anchor.seq} differs from the anchor`);
      }
      this.#checkpoints?.trust(anchor.seq);
    }
    const checkpointProblem = this.#checkpoints?.push(record);
    if (checkpointProblem !== undefined) return fail(index, record.seq, checkpointProblem.reason, checkpointProblem.message);
    this.#prevSeq = record.seq;
    this.#prevHash = record.hash;
    return undefined;
  }

  /** The verdict for everything pushed so far. */
  finish(): ChainVerification {
    if (this.#failure !== undefined) return this.#failure;
    const anchor = this.#anchor;
    if (anchor !== undefined && this.#prevSeq < anchor.seq) {
      return fail(
        this.#count,
        this.#prevSeq + 1,
        'truncated',
        `the chain ends at seq ${this.#prevSeq} but the anchor is at seq ${anchor.seq}`,
      );
    }
    let checkpoints: CheckpointSummary | undefined;
    if (this.#checkpoints !== undefined) {
      const verdict = this.#checkpoints.finish(this.#prevSeq);
      if (!verdict.ok) {
        this.#failure = fail(this.#count, this.#prevSeq === 0 ? undefined : this.#prevSeq, verdict.reason, verdict.message);
        return this.#failure;
      }
      checkpoints = verdict.summary;
    }
    const result: ChainVerification = { ok: true, count: this.#count };
    if (!(this.#prevSeq === 0 && this.#fromGenesis)) result.head = { seq: this.#prevSeq, hash: this.#prevHash };
    if (checkpoints !== undefined) result.checkpoints = checkpoints;
    return result;
  }
}

function fail(index: number, seq: number | undefined, reason: ChainFailureReason, message: string): ChainFailure {
  return { ok: false, index, seq, reason, message };
}

// Options come from trusted code, so a bad one is a programming error, not a verdict.
function checkHead(head: AuditHead, name: string, minSeq: number): void {
  if (!Number.isSafeInteger(head.seq) || head.seq < minSeq || !isHexSha256(head.hash)) {
    throw new TypeError(`${name} must be { seq: integer >= ${minSeq}, hash: hex SHA-256 }`);
  }
  if (head.seq === 0 && head.hash !== GENESIS_HASH) {
    throw new TypeError(`${name} at seq 0 must carry the genesis hash`);
  }
}

/**
 * Verifies records in order (a whole log, or a suffix with `from`). Detects edited
 * (`hash_mismatch`), reordered, inserted and dropped records (`seq_gap`,
 * `prev_hash_mismatch`, `bad_genesis`) and malformed ones. Records dropped from the
 * end are detected only against `anchor` (`truncated`). Without `checkpoints` this
 * proves consistency only, not authorship: see VerifyChainOptions.checkpoints.
 */
export function verifyChain(records: Iterable<unknown>, opts?: VerifyChainOptions): ChainVerification {
  const verifier = new ChainVerifier(opts);
  if (Array.isArray(records)) {
    for (let i = 0; i < records.length; i++) {
      if (verifier.push(records[i]) !== undefined) break;
    }
  } else {
    for (const record of records) {
      if (verifier.push(record) !== undefined) break;
    }
  }
  return verifier.finish();
}

/** `verifyChain` for streams, e.g. records read page by page or line by line. */
export async function verifyChainAsync(
  records: AsyncIterable<unknown> | Iterable<unknown>,
  opts?: VerifyChainOptions,
): Promise<ChainVerification> {
  const verifier = new ChainVerifier(opts);
  for await (const record of records) {
    if (verifier.push(record) !== undefined) break;
  }
  return verifier.finish();
}
