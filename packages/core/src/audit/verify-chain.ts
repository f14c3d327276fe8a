import { GENESIS_HASH, hashValidatedRecord } from './chain.ts';
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
  /** The record at the anchor's seq has another hash, or the chain goes past the anchor. */
  | 'anchor_mismatch'
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

export type ChainVerification = { ok: true; count: number; head?: AuditHead } | ChainFailure;

export interface VerifyChainOptions {
  /**
   * The expected last record, taken from somewhere the log's writer cannot rewrite
   * (a signed checkpoint, another store, a printed receipt). Without it, records
   * dropped from the END of a log are undetectable: the shorter chain is still a
   * valid chain. With it, a shorter chain fails `truncated`, and a chain that
   * differs at or continues past the anchor fails `anchor_mismatch`.
   */
  anchor?: AuditHead | undefined;
  /** The trusted record just before the first input record, to verify a suffix of a log. */
  from?: AuditHead | undefined;
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

  constructor(opts: VerifyChainOptions = {}) {
    const { from, anchor } = opts;
    if (from !== undefined) checkHead(from, 'from', 0);
    if (anchor !== undefined) checkHead(anchor, 'anchor', from?.seq ?? 0);
    this.#prevSeq = from?.seq ?? 0;
    this.#prevHash = from?.hash ?? GENESIS_HASH;
    this.#fromGenesis = from === undefined || from.seq === 0;
    this.#anchor = anchor;
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
    if (anchor !== undefined) {
      if (record.seq > anchor.seq) {
        return fail(index, record.seq, 'anchor_mismatch', `the chain continues past the anchor at seq ${anchor.seq}`);
      }
      if (record.seq === anchor.seq && record.hash !== anchor.hash) {
        return fail(index, record.seq, 'anchor_mismatch', `hash of seq ${anchor.seq} differs from the anchor`);
      }
    }
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
    if (this.#prevSeq === 0 && this.#fromGenesis) return { ok: true, count: this.#count };
    return { ok: true, count: this.#count, head: { seq: this.#prevSeq, hash: this.#prevHash } };
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
 * end are detected only against `anchor` (`truncated`).
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
