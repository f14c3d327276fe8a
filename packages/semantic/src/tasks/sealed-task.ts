import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type Keyring, TASK_SUMMARY_PURPOSE } from '@countersign/core/token';

/** A task summary as stored: AES-256-GCM ciphertext under a per-run key derived from the master secret. */
export interface SealedTask {
  taskId: string;
  runId: string;
  /** The master key (keyring id) the run key was derived from, so rotation keeps old summaries readable. */
  kid: string;
  /** base64url: 12-byte nonce, ciphertext, 16-byte tag. */
  iv: string;
  ciphertext: string;
  tag: string;
  /** SHA-256 (hex) of the task text: what the audit chain carries. */
  taskDigest: string;
  createdAt: number;
  expiresAt: number;
}

export class TaskKeyError extends Error {
  readonly code = 'no_symmetric_key' as const;
}

/**
 * Encrypts `task` for `runId`: key = HKDF(master secret, run id, `countersign/v2/task-summary`),
 * the gate's own per-run derivation under its own purpose label; a fresh random 96-bit
 * nonce per summary; the task id, run id and key id are authenticated data, so a
 * ciphertext moved to another id or run does not decrypt.
 */
export function sealTask(keyring: Keyring, fields: Omit<SealedTask, 'kid' | 'iv' | 'ciphertext' | 'tag'>, task: string): SealedTask {
  const entry = keyring.active();
  if (entry.alg !== 'HS256') throw new TaskKeyError('task summaries need an HS256 master secret in the keyring to derive their key from');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.runKey(entry, fields.runId, TASK_SUMMARY_PURPOSE), iv);
  cipher.setAAD(additionalData(fields.taskId, fields.runId, entry.kid));
  const ciphertext = Buffer.concat([cipher.update(task, 'utf8'), cipher.final()]);
  return { ...fields, kid: entry.kid, iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

/** The task text, or undefined when the record does not authenticate (edited, moved, unknown key). */
export function openTask(keyring: Keyring, sealed: SealedTask): string | undefined {
  const entry = keyring.get(sealed.kid);
  if (entry === undefined || entry.alg !== 'HS256') return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyring.runKey(entry, sealed.runId, TASK_SUMMARY_PURPOSE), Buffer.from(sealed.iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(additionalData(sealed.taskId, sealed.runId, sealed.kid));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Length-prefixed, so no two (task id, run id, key id) triples share bytes. */
function additionalData(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.map((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return Buffer.concat([length, bytes]);
    }),
  );
}
