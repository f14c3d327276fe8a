import { checkShape, HEX64, malformed } from './claims.ts';
import { AUDIT_CHECKPOINT_PURPOSE } from './derive-run-key.ts';
import { encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
import { signWith } from './sign.ts';
import { type SignedCheck, type SignedKind, verifySigned } from './verify-signed.ts';

/**
 * A signed checkpoint of the audit chain: the service's signature over one chain head
 * (seq, hash). The hash chain alone only proves the records agree with each other;
 * anyone who can write the store can edit a record and recompute every later hash.
 * A checkpoint pins the head it names, and with it every record up to that seq, to
 * the key. Same JWS form as tokens and decision records but its own `typ` and HKDF
 * purpose, so a checkpoint can never pass as either of them, nor the reverse.
 */
export const AUDIT_CHECKPOINT_TYPE = 'countersign-audit-checkpoint+jwt';
export const AUDIT_CHECKPOINT_VERSION = 1;

/**
 * HS256 keys are derived per "run"; checkpoints belong to no run, so they use this
 * fixed salt. The purpose label, not the salt, is what separates them from tokens.
 */
const CHECKPOINT_SALT = 'countersign-audit-chain';

export interface AuditCheckpointClaims {
  v: typeof AUDIT_CHECKPOINT_VERSION;
  /** The head being signed: the record at `seq` has hash `hash`. */
  seq: number;
  hash: string;
  /** When the checkpoint was signed, milliseconds since the epoch. */
  at: number;
}

export type AuditCheckpointCheck = SignedCheck<AuditCheckpointClaims>;

const CLAIM_KEYS = new Set(['v', 'seq', 'hash', 'at']);

/**
 * Signs a chain head with the keyring's active key: Ed25519 when that key is EdDSA
 * (anyone with the public key can then verify), otherwise HMAC under the checkpoint
 * purpose (verifying needs the master secret). Throws KeyError without an active key.
 */
export function signAuditCheckpoint(head: { seq: number; hash: string }, at: number, keyring: Keyring): string {
  if (!Number.isSafeInteger(head.seq) || head.seq < 1 || !HEX64.test(head.hash) || !Number.isSafeInteger(at)) {
    throw new TypeError('a checkpoint needs a positive integer seq, a hex SHA-256 hash and an integer time');
  }
  const key = keyring.active();
  const claims: AuditCheckpointClaims = { v: AUDIT_CHECKPOINT_VERSION, seq: head.seq, hash: head.hash, at };
  const signingInput = `${encodeSegment({ alg: key.alg, typ: AUDIT_CHECKPOINT_TYPE, kid: key.kid })}.${encodeSegment(claims)}`;
  return `${signingInput}.${signWith(keyring, key, CHECKPOINT_SALT, signingInput, AUDIT_CHECKPOINT_PURPOSE).toString('base64url')}`;
}

const CHECKPOINT_KIND: SignedKind<AuditCheckpointClaims> = {
  typ: AUDIT_CHECKPOINT_TYPE,
  purpose: AUDIT_CHECKPOINT_PURPOSE,
  noun: 'checkpoint',
  readClaims(c) {
    const problem = checkShape(c, CLAIM_KEYS, AUDIT_CHECKPOINT_VERSION, 'checkpoint');
    if (problem !== undefined) return problem;
    const { seq, hash, at } = c;
    if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof hash !== 'string' || !HEX64.test(hash) || !Number.isSafeInteger(at)) {
      return malformed('claims must be { seq: positive integer, hash: hex SHA-256, at: integer }');
    }
    return { ok: true, claims: { v: AUDIT_CHECKPOINT_VERSION, seq: seq as number, hash, at: at as number } };
  },
};

/**
 * Checks a checkpoint's form and signature (algorithm from the key, by `kid`). The key's
 * salt is fixed, so the signature is checked before the payload is parsed. Never throws.
 */
export function verifyAuditCheckpoint(checkpoint: unknown, keyring: Keyring): AuditCheckpointCheck {
  return verifySigned(CHECKPOINT_KIND, checkpoint, keyring, { known: CHECKPOINT_SALT });
}
