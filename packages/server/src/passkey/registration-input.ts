import { readCosePublicKey } from './public-key.ts';

/** The transports WebAuthn names (AuthenticatorTransport, and `cable`/`smart-card` browsers also report). */
const KNOWN_TRANSPORTS: ReadonlySet<string> = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
/** WebAuthn §4: a credential id is at most 1023 bytes; a longer one could never be sent back to sign or remove. */
export const MAX_CREDENTIAL_ID_BYTES = 1023;
/** A counter that can never advance (§6.1.1: 32 bits) makes a key that counts dead at its first use. */
const MAX_COUNTER = 0xffff_fffe;

export type InputRead<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * The `transports` a registration response carries (`response.transports`), read before
 * anything else: absent, or an array of known transport names (each once). Anything else
 * is refused: stored, it would be handed back to every browser that signs.
 */
export function readTransports(response: unknown): InputRead<string[] | undefined> {
  const inner = typeof response === 'object' && response !== null ? (response as { response?: unknown }).response : undefined;
  const transports = typeof inner === 'object' && inner !== null ? (inner as { transports?: unknown }).transports : undefined;
  if (transports === undefined) return { ok: true, value: undefined };
  if (!Array.isArray(transports) || transports.length > KNOWN_TRANSPORTS.size) {
    return { ok: false, message: `transports must be an array of at most ${KNOWN_TRANSPORTS.size} of ${[...KNOWN_TRANSPORTS].join(', ')}` };
  }
  for (const transport of transports) {
    if (typeof transport !== 'string' || !KNOWN_TRANSPORTS.has(transport)) {
      return { ok: false, message: `unknown transport ${JSON.stringify(transport)?.slice(0, 40)}: one of ${[...KNOWN_TRANSPORTS].join(', ')}` };
    }
  }
  return { ok: true, value: [...new Set(transports as string[])] };
}

/**
 * The verified credential as it will be stored, checked in full: its id (1 to 1023 bytes,
 * base64url), a counter that can still advance, and a public key of a supported type,
 * curve and algorithm (re-encoded canonically, so one key is one text for the store's
 * one-key-one-credential rule). Returns the stored public key text and its algorithm.
 */
export function readCredential(credential: { id: string; publicKey: Uint8Array; counter: number }): InputRead<{ publicKey: string; algorithm: number }> {
  const id = Buffer.from(credential.id, 'base64url');
  if (id.length === 0 || id.length > MAX_CREDENTIAL_ID_BYTES || id.toString('base64url') !== credential.id) {
    return { ok: false, message: `the credential id must be 1 to ${MAX_CREDENTIAL_ID_BYTES} bytes, base64url` };
  }
  if (!Number.isSafeInteger(credential.counter) || credential.counter < 0 || credential.counter > MAX_COUNTER) {
    return { ok: false, message: 'the signature counter is at its limit: this key could never sign' };
  }
  const key = readCosePublicKey(credential.publicKey);
  if (!key.ok) return key;
  return { ok: true, value: { publicKey: key.cose, algorithm: key.algorithm } };
}
