import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import { decodeCredentialPublicKey, isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * The public keys a passkey may have, each with the one algorithm it signs with: ES256 on
 * P-256 (EC2), EdDSA on Ed25519 (OKP), RS256 (RSA, 2048 to 4096 bits). A key is read in full
 * before anything is stored: a wrong type, curve, length, an algorithm that does not fit
 * the key, or an EC point off its curve makes a key that could never sign, so it is refused.
 */
export type PublicKeyRead =
  | {
      ok: true;
      /** COSE algorithm id: -7, -8 or -257. */
      algorithm: number;
      /** The key re-encoded in one canonical COSE form (base64url): equal keys, equal text. */
      cose: string;
      /** SHA-256 of the key's SubjectPublicKeyInfo (base64url): names the key whatever its encoding. */
      keyId: string;
    }
  | { ok: false; message: string };

const KTY = 1;
const ALG = 3;
const CRV = -1;
const X = -2;
const Y = -3;
const RSA_N = -1;
const RSA_E = -2;

/** Reads a COSE public key (base64url text, as stored, or bytes, as registered); never throws. */
export function readCosePublicKey(key: string | Uint8Array): PublicKeyRead {
  let map: Map<number, unknown>;
  try {
    const bytes = typeof key === 'string' ? new Uint8Array(Buffer.from(key, 'base64url')) : key;
    map = decodeCredentialPublicKey(bytes as Parameters<typeof decodeCredentialPublicKey>[0]) as unknown as Map<number, unknown>;
  } catch (error) {
    return { ok: false, message: `the public key is not COSE: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!(map instanceof Map)) return { ok: false, message: 'the public key is not a COSE map' };
  const kty = map.get(KTY);
  const alg = map.get(ALG);
  switch (kty) {
    case 2: {
      if (alg !== -7) return refuse(map, 'an EC2 key signs only with ES256 (-7) here');
      if (map.get(CRV) !== 1) return { ok: false, message: 'an EC2 key must be on P-256 (crv 1)' };
      const x = bytesOf(map.get(X), 32);
      const y = bytesOf(map.get(Y), 32);
      if (x === undefined || y === undefined) return { ok: false, message: 'an EC2 P-256 key needs 32-byte x and y' };
      return finish(alg, [[KTY, 2], [ALG, alg], [CRV, 1], [X, x], [Y, y]], { kty: 'EC', crv: 'P-256', x: b64(x), y: b64(y) }, map, [KTY, ALG, CRV, X, Y]);
    }
    case 1: {
      if (alg !== -8) return refuse(map, 'an OKP key signs only with EdDSA (-8) here');
      if (map.get(CRV) !== 6) return { ok: false, message: 'an OKP key must be Ed25519 (crv 6)' };
      const x = bytesOf(map.get(X), 32);
      if (x === undefined) return { ok: false, message: 'an Ed25519 key needs a 32-byte x' };
      return finish(alg, [[KTY, 1], [ALG, alg], [CRV, 6], [X, x]], { kty: 'OKP', crv: 'Ed25519', x: b64(x) }, map, [KTY, ALG, CRV, X]);
    }
    case 3: {
      if (alg !== -257) return refuse(map, 'an RSA key signs only with RS256 (-257) here');
      const n = bytesOf(map.get(RSA_N));
      const e = bytesOf(map.get(RSA_E));
      if (n === undefined || n.length < 256 || n.length > 512 || e === undefined || e.length === 0 || e.length > 8) {
        return { ok: false, message: 'an RSA key needs a 2048- to 4096-bit modulus and a short exponent' };
      }
      return finish(alg, [[KTY, 3], [ALG, alg], [RSA_N, n], [RSA_E, e]], { kty: 'RSA', n: b64(n), e: b64(e) }, map, [KTY, ALG, RSA_N, RSA_E]);
    }
    default:
      return { ok: false, message: `unsupported COSE key type ${JSON.stringify(kty)}: EC2 P-256, OKP Ed25519 or RSA` };
  }
}

function refuse(map: Map<number, unknown>, message: string): PublicKeyRead {
  return { ok: false, message: `${message}, not ${JSON.stringify(map.get(ALG))}` };
}

/** Builds the canonical form, after node:crypto has imported the key (which refuses an EC point off its curve). */
function finish(algorithm: number, entries: [number, unknown][], jwk: JsonWebKey, map: Map<number, unknown>, labels: readonly number[]): PublicKeyRead {
  const extra = [...map.keys()].find((label) => !labels.includes(label));
  if (extra !== undefined) return { ok: false, message: `the public key has an unexpected COSE parameter ${JSON.stringify(extra)}` };
  let spki: Buffer;
  try {
    spki = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' });
  } catch (error) {
    return { ok: false, message: `the public key is not a valid key: ${error instanceof Error ? error.message : String(error)}` };
  }
  const cose = Buffer.from(isoCBOR.encode(new Map(entries) as Parameters<typeof isoCBOR.encode>[0])).toString('base64url');
  return { ok: true, algorithm, cose, keyId: createHash('sha256').update(spki).digest('base64url') };
}

function bytesOf(value: unknown, length?: number): Uint8Array | undefined {
  if (!(value instanceof Uint8Array)) return undefined;
  return length === undefined || value.length === length ? value : undefined;
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** `audit verify`'s name for a registered public key (see core's `PasskeyEvidenceOptions.publicKeyId`). */
export function publicKeyId(publicKey: string): string | undefined {
  const read = readCosePublicKey(publicKey);
  return read.ok ? read.keyId : undefined;
}
