import { AUDIT_CHECKPOINT_PURPOSE } from './derive-run-key.ts';
import { decodeJws, encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
import { signatureValid, signWith } from './sign.ts';

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

export type AuditCheckpointCheck =
  | { ok: true; claims: AuditCheckpointClaims; kid: string }
  | {
      ok: false;
      reason: 'missing' | 'malformed' | 'unsupported_format' | 'unknown_key' | 'algorithm_mismatch' | 'bad_signature';
      message: string;
    };

const HEX64 = /^[0-9a-f]{64}$/;
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

/** Checks a checkpoint's form and signature (algorithm from the key, by `kid`). Never throws. */
export function verifyAuditCheckpoint(checkpoint: unknown, keyring: Keyring): AuditCheckpointCheck {
  const jws = decodeJws(checkpoint, AUDIT_CHECKPOINT_TYPE);
  if (!jws.ok) return { ok: false, reason: jws.reason, message: `checkpoint ${jws.message}` };
  const { header, payload, signingInput, signature } = jws.parts;
  const extra = Object.keys(payload).find((k) => !CLAIM_KEYS.has(k));
  if (extra !== undefined) return { ok: false, reason: 'malformed', message: `unknown claim "${extra}"` };
  if (payload.v !== AUDIT_CHECKPOINT_VERSION) {
    return { ok: false, reason: 'unsupported_format', message: `unsupported checkpoint version ${String(payload.v)}` };
  }
  const { seq, hash, at } = payload;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof hash !== 'string' || !HEX64.test(hash) || !Number.isSafeInteger(at)) {
    return { ok: false, reason: 'malformed', message: 'claims must be { seq: positive integer, hash: hex SHA-256, at: integer }' };
  }
  const key = keyring.get(header.kid);
  if (key === undefined) return { ok: false, reason: 'unknown_key', message: `no trusted key with id "${header.kid}"` };
  if (header.alg !== key.alg) {
    return { ok: false, reason: 'algorithm_mismatch', message: `key "${key.kid}" is ${key.alg}; header says ${header.alg}` };
  }
  let valid = false;
  try {
    valid = signatureValid(keyring, key, CHECKPOINT_SALT, signingInput, signature, AUDIT_CHECKPOINT_PURPOSE);
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'bad_signature', message: 'checkpoint signature does not verify' };
  return { ok: true, claims: { v: AUDIT_CHECKPOINT_VERSION, seq: seq as number, hash, at: at as number }, kid: key.kid };
}
