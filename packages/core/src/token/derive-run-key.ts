import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * HKDF purpose label for approval-token MAC keys; a new purpose gets a new label. The
 * `v2` marks the derivation below (run id in `info`); v1 used the run id as the salt.
 */
export const APPROVAL_TOKEN_PURPOSE = 'countersign/v2/approval-token';
/** HKDF purpose label for signed decision records, so a decision can never pass as a token. */
export const DECISION_RECORD_PURPOSE = 'countersign/v2/decision-record';
/** HKDF purpose label for signed audit checkpoints: a checkpoint MAC is never a token or a decision. */
export const AUDIT_CHECKPOINT_PURPOSE = 'countersign/v2/audit-checkpoint';
/** HKDF purpose label for encrypting stored task summaries (AES-256-GCM): never a MAC key of the others. */
export const TASK_SUMMARY_PURPOSE = 'countersign/v2/task-summary';

// Fixed, empty salt (RFC 5869 §3.1 allows it): the run must not go in the salt, because
// HMAC pads short keys with zeros, so run ids differing only by trailing NUL bytes
// ("r" and "r\u0000") would derive the same key.
const NO_SALT = Buffer.alloc(0);
// Node refuses an HKDF info longer than this.
const MAX_INFO_BYTES = 1024;

/**
 * Per-run key = HKDF-SHA256(master, salt = empty, info = hkdfInfo(purpose, run id))
 * (invariant 8). Deterministic: the same run gets the same key after a restart or a
 * durable replay, and a key leaked for one run says nothing about another.
 * Throws a RangeError for a run id too long to encode (propose caps ids far below it).
 */
export function deriveRunKey(master: Uint8Array, runId: string, purpose = APPROVAL_TOKEN_PURPOSE): Buffer {
  return Buffer.from(hkdfSync('sha256', master, NO_SALT, hkdfInfo(purpose, runId), 32));
}

/**
 * `info` = for purpose, then run id: a 4-byte big-endian byte length and the UTF-8 bytes.
 * Length prefixes make the encoding injective: no two (purpose, run id) pairs share bytes.
 */
export function hkdfInfo(purpose: string, runId: string): Buffer {
  const info = Buffer.concat([lengthPrefixed(purpose), lengthPrefixed(runId)]);
  if (info.length > MAX_INFO_BYTES) {
    throw new RangeError(`run id too long to derive a key from (${info.length} > ${MAX_INFO_BYTES} bytes of HKDF info)`);
  }
  return info;
}

function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * Bounded cache of derived keys, held as KeyObjects: HMAC with a KeyObject skips the
 * key import `createHmac` otherwise repeats on every call. Kept by purpose, then key id,
 * then run id (three lookups of strings whose hashes V8 keeps, instead of building and
 * hashing a combined key on every verify); separate maps, so (kid "a\u0000b", run "c")
 * and (kid "a", run "b\u0000c") can never share an entry. Each (purpose, key id) holds at
 * most `maxEntries` runs, oldest first out; purposes are code constants and key ids come
 * from the keyring, so the whole cache is bounded.
 */
export class RunKeyCache {
  readonly #max: number;
  readonly #keys = new Map<string, Map<string, Map<string, KeyObject>>>();
  constructor(maxEntries = 10_000) {
    this.#max = maxEntries;
  }

  get(kid: string, master: Uint8Array, runId: string, purpose = APPROVAL_TOKEN_PURPOSE): KeyObject {
    let byKid = this.#keys.get(purpose);
    if (byKid === undefined) {
      byKid = new Map();
      this.#keys.set(purpose, byKid);
    }
    let byRun = byKid.get(kid);
    if (byRun === undefined) {
      byRun = new Map();
      byKid.set(kid, byRun);
    }
    let key = byRun.get(runId);
    if (key === undefined) {
      key = createSecretKey(deriveRunKey(master, runId, purpose));
      if (byRun.size >= this.#max) byRun.delete(byRun.keys().next().value!);
      byRun.set(runId, key);
    }
    return key;
  }
}
