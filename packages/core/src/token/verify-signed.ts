import type { ClaimsRead } from './claims.ts';
import { type JwsSplit, readPayload, splitJws } from './jws.ts';
import type { KeyEntry, Keyring } from './keyring.ts';
import { signatureValid } from './sign.ts';

/**
 * The one verification path every signed kind takes (approval tokens, decision records,
 * audit checkpoints): JWS form and header (its `typ` must be the kind's own) → key by
 * `kid` → algorithm from the key, never the header → signature under the kind's own
 * HKDF purpose → the kind's typed claims. What differs per kind is only this description,
 * so a check added here holds for all three.
 */
export interface SignedKind<C> {
  typ: string;
  /** HKDF purpose label for HS256 keys: what keeps one kind from passing as another. */
  purpose: string;
  /** Names the kind in messages ("approval token", "decision record", …). */
  noun: string;
  readClaims(payload: Record<string, unknown>): ClaimsRead<C>;
}

export type SignedRejection = 'missing' | 'malformed' | 'unsupported_format' | 'unknown_key' | 'algorithm_mismatch' | 'bad_signature';

export type SignedCheck<C, R extends string = never> =
  | { ok: true; claims: C; kid: string }
  | { ok: false; reason: SignedRejection | R; message: string };

/**
 * Where the per-run HS256 key's run id comes from. `known`: the verifier knows it up
 * front (the expected call's run, or a fixed label), so the signature is checked over
 * the exact signing input BEFORE the payload is parsed. Without `explain` a bad signature
 * is rejected without reading the payload at all; with it, the unauthenticated claims are
 * read to name a more precise reason (diagnostics only: a rejection either way). `fromClaims`: only the signed object says which run
 * it belongs to, so its claims are read first and the key derived from them.
 */
export type RunSalt<C, R extends string> =
  | { known: string; explain?: (claims: C) => { reason: R; message: string } | undefined; minted?: KnownPayload | undefined }
  | { fromClaims: (claims: C) => string };

/**
 * The payload segment a verifier expects, with the object it encodes: the verifier holds
 * the record the signed object was minted from. When the presented payload is exactly
 * `segment` (and the signature verifies), `payload` is what reading it would give, so it is
 * handed to the kind's claims reader instead of decoding and parsing the segment. Any other
 * payload is read as always. The producer guarantees the equivalence (see mintedPayloadOf).
 */
export interface KnownPayload {
  segment: string;
  payload: Record<string, unknown>;
}

/** Never throws. */
export function verifySigned<C, R extends string = never>(
  kind: SignedKind<C>,
  text: unknown,
  keyring: Keyring,
  salt: RunSalt<C, R>,
): SignedCheck<C, R> {
  const minted = 'known' in salt ? salt.minted : undefined;
  const split = splitJws(text, kind.typ, minted?.segment);
  if (!split.ok) {
    const message = split.reason === 'missing' ? `no ${kind.noun} was presented` : `${kind.noun} ${split.message}`;
    return { ok: false, reason: split.reason, message };
  }
  const { header } = split.parts;
  const key = keyring.get(header.kid);
  if (key === undefined) return { ok: false, reason: 'unknown_key', message: `no trusted key with id "${header.kid}"` };
  if (header.alg !== key.alg) {
    return { ok: false, reason: 'algorithm_mismatch', message: `key "${key.kid}" is ${key.alg}; header says ${header.alg}` };
  }
  const badSignature = () => ({ ok: false, reason: 'bad_signature', message: `${kind.noun} signature does not verify` }) as const;

  if ('known' in salt) {
    if (!checkSignature(keyring, key, salt.known, split.parts, kind.purpose)) {
      if (salt.explain === undefined) return badSignature();
      // Diagnostics only: the unauthenticated claims may name a more precise reason.
      const read = readClaims(kind, split.parts.payloadSegment);
      if (!read.ok) return read;
      return { ok: false, ...(salt.explain(read.claims) ?? badSignature()) };
    }
    // Authenticated bytes equal to the expected segment: their reading is the object it encodes.
    const read =
      minted !== undefined && split.parts.payloadSegment === minted.segment ? kind.readClaims(minted.payload) : readClaims(kind, split.parts.payloadSegment);
    return read.ok ? { ok: true, claims: read.claims, kid: key.kid } : read;
  }
  const read = readClaims(kind, split.parts.payloadSegment);
  if (!read.ok) return read;
  if (!checkSignature(keyring, key, salt.fromClaims(read.claims), split.parts, kind.purpose)) return badSignature();
  return { ok: true, claims: read.claims, kid: key.kid };
}

function readClaims<C>(kind: SignedKind<C>, segment: string): ClaimsRead<C> {
  const payload = readPayload(segment);
  if (!payload.ok) return { ok: false, reason: 'malformed', message: `${kind.noun} ${payload.message}` };
  return kind.readClaims(payload.payload);
}

function checkSignature(keyring: Keyring, key: KeyEntry, runId: string, parts: JwsSplit, purpose: string): boolean {
  try {
    return signatureValid(keyring, key, runId, parts.signingInput, parts.signature, purpose);
  } catch {
    return false;
  }
}
