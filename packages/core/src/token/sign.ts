import { createHmac, sign as signAsymmetric, timingSafeEqual, verify as verifyAsymmetric } from 'node:crypto';
import type { KeyEntry, Keyring } from './keyring.ts';

/** Signature over the JWS signing input with the key's own algorithm. */
export function signWith(keyring: Keyring, entry: KeyEntry, runId: string, signingInput: string, purpose?: string): Buffer {
  if (entry.alg === 'HS256') {
    return createHmac('sha256', keyring.runKey(entry, runId, purpose)).update(signingInput).digest();
  }
  if (entry.privateKey === undefined) throw new TypeError(`key "${entry.kid}" has no private key`);
  return signAsymmetric(null, Buffer.from(signingInput), entry.privateKey);
}

/** Constant-time check of a signature with the key's own algorithm (never the header's). */
export function signatureValid(
  keyring: Keyring,
  entry: KeyEntry,
  runId: string,
  signingInput: string,
  signature: Buffer,
  purpose?: string,
): boolean {
  if (entry.alg === 'HS256') {
    const expected = createHmac('sha256', keyring.runKey(entry, runId, purpose)).update(signingInput).digest();
    return signature.length === expected.length && timingSafeEqual(signature, expected);
  }
  if (signature.length !== 64) return false;
  return verifyAsymmetric(null, Buffer.from(signingInput), entry.publicKey, signature);
}
