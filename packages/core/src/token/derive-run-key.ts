import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** HKDF purpose label for approval-token MAC keys; a new purpose gets a new label. */
export const APPROVAL_TOKEN_PURPOSE = 'countersign/v1/approval-token';
/** HKDF purpose label for signed decision records, so a decision can never pass as a token. */
export const DECISION_RECORD_PURPOSE = 'countersign/v1/decision-record';
/** HKDF purpose label for signed audit checkpoints: a checkpoint MAC is never a token or a decision. */
export const AUDIT_CHECKPOINT_PURPOSE = 'countersign/v1/audit-checkpoint';

/**
 * Per-run key = HKDF-SHA256(master, salt = run id, info = purpose) (invariant 8).
 * Deterministic: the same run gets the same key after a restart or a durable replay,
 * and a key leaked for one run says nothing about another.
 */
export function deriveRunKey(master: Uint8Array, runId: string, purpose = APPROVAL_TOKEN_PURPOSE): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.from(runId, 'utf8'), Buffer.from(purpose, 'utf8'), 32));
}

/**
 * Bounded cache of derived keys, held as KeyObjects: HMAC with a KeyObject skips the
 * key import `createHmac` otherwise repeats on every call. Oldest entries go first.
 */
export class RunKeyCache {
  readonly #max: number;
  readonly #keys = new Map<string, KeyObject>();
  constructor(maxEntries = 10_000) {
    this.#max = maxEntries;
  }

  get(kid: string, master: Uint8Array, runId: string, purpose = APPROVAL_TOKEN_PURPOSE): KeyObject {
    const cacheKey = `${purpose}\u0000${kid}\u0000${runId}`;
    let key = this.#keys.get(cacheKey);
    if (key === undefined) {
      key = createSecretKey(deriveRunKey(master, runId, purpose));
      if (this.#keys.size >= this.#max) this.#keys.delete(this.#keys.keys().next().value!);
      this.#keys.set(cacheKey, key);
    }
    return key;
  }
}
