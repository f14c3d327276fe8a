import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { KeyError } from './errors.ts';
import { RunKeyCache } from './derive-run-key.ts';

/** Below this a master secret is refused: HS256 needs a key at least as long as its output. */
export const MIN_SECRET_BYTES = 32;

/** `active` mints and verifies; `verify` only verifies (after a rotation); retired keys are removed. */
export type KeyStatus = 'active' | 'verify';

export interface HmacKeyEntry {
  kid: string;
  alg: 'HS256';
  status: KeyStatus;
  /** Master secret; per-run MAC keys are derived from it with HKDF. */
  secret: Uint8Array;
}

export interface Ed25519KeyEntry {
  kid: string;
  alg: 'EdDSA';
  status: KeyStatus;
  publicKey: KeyObject;
  /** Absent on executors that only verify. */
  privateKey?: KeyObject | undefined;
}

export type KeyEntry = HmacKeyEntry | Ed25519KeyEntry;

/**
 * The set of keys a service trusts, by key id. Exactly one key is active for minting
 * (when the keyring can mint at all); older keys keep verifying until retired.
 * The verifier takes each key's algorithm from here, never from a token header.
 */
export class Keyring {
  readonly #entries: ReadonlyMap<string, KeyEntry>;
  readonly #runKeys = new RunKeyCache();

  constructor(entries: readonly KeyEntry[]) {
    const map = new Map<string, KeyEntry>();
    for (const entry of entries) {
      validateEntry(entry);
      if (map.has(entry.kid)) throw new KeyError('duplicate_kid', `key id "${entry.kid}" appears twice`);
      map.set(entry.kid, entry);
    }
    const active = entries.filter((e) => e.status === 'active');
    if (active.length > 1) throw new KeyError('invalid_key', 'more than one active key');
    this.#entries = map;
  }

  get(kid: string): KeyEntry | undefined {
    return this.#entries.get(kid);
  }

  entries(): KeyEntry[] {
    return [...this.#entries.values()];
  }

  /** The key that mints new tokens. */
  active(): KeyEntry {
    for (const entry of this.#entries.values()) {
      if (entry.status === 'active') return entry;
    }
    throw new KeyError('no_active_key', 'the keyring has no active key; it can verify but not mint');
  }

  /** A new keyring where `next` mints and the current active key only verifies. */
  rotate(next: KeyEntry): Keyring {
    const demoted = this.entries().map((e) => (e.status === 'active' ? { ...e, status: 'verify' as const } : e));
    return new Keyring([...demoted, { ...next, status: 'active' }]);
  }

  /** A new keyring without `kid`: tokens signed with it stop verifying (`unknown_key`). */
  retire(kid: string): Keyring {
    return new Keyring(this.entries().filter((e) => e.kid !== kid));
  }

  /** The HS256 MAC key for one run, derived from the master secret and cached. */
  runKey(entry: HmacKeyEntry, runId: string, purpose?: string): KeyObject {
    return this.#runKeys.get(entry.kid, entry.secret, runId, purpose);
  }
}

function validateEntry(entry: KeyEntry): void {
  if (typeof entry.kid !== 'string' || entry.kid.length === 0 || entry.kid.length > 128) {
    throw new KeyError('invalid_key', 'key id must be a non-empty string of at most 128 characters');
  }
  if (entry.alg === 'HS256') {
    if (!(entry.secret instanceof Uint8Array) || entry.secret.byteLength < MIN_SECRET_BYTES) {
      throw new KeyError(
        'weak_secret',
        `key "${entry.kid}": master secret must be at least ${MIN_SECRET_BYTES} bytes (got ${entry.secret?.byteLength ?? 0})`,
      );
    }
  } else if (entry.alg === 'EdDSA') {
    if (entry.publicKey?.asymmetricKeyType !== 'ed25519') {
      throw new KeyError('invalid_key', `key "${entry.kid}": EdDSA keys must be Ed25519`);
    }
    if (entry.privateKey !== undefined && entry.privateKey.asymmetricKeyType !== 'ed25519') {
      throw new KeyError('invalid_key', `key "${entry.kid}": EdDSA private key must be Ed25519`);
    }
  } else {
    throw new KeyError('invalid_key', `key "${(entry as KeyEntry).kid}": unsupported algorithm`);
  }
}

/** Decodes a secret given as hex, base64 or base64url text. */
export function decodeSecret(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return Buffer.from(trimmed, 'base64url');
  throw new KeyError('invalid_key', 'secret must be hex, base64 or base64url text');
}

export function hmacKey(kid: string, secret: Uint8Array | string, status: KeyStatus = 'active'): HmacKeyEntry {
  return { kid, alg: 'HS256', status, secret: typeof secret === 'string' ? decodeSecret(secret) : secret };
}

/** An Ed25519 entry from PEM text (private PEM for a minter, public PEM for a verifier). */
export function ed25519KeyFromPem(kid: string, pem: string, status: KeyStatus = 'active'): Ed25519KeyEntry {
  if (pem.includes('PRIVATE KEY')) {
    const privateKey = createPrivateKey(pem);
    return { kid, alg: 'EdDSA', status, privateKey, publicKey: createPublicKey(privateKey) };
  }
  return { kid, alg: 'EdDSA', status, publicKey: createPublicKey(pem) };
}

export function generateEd25519Key(kid: string, status: KeyStatus = 'active'): Ed25519KeyEntry {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { kid, alg: 'EdDSA', status, publicKey, privateKey };
}

/**
 * A keyring from the environment:
 * - COUNTERSIGN_MASTER_SECRET (hex/base64url, ≥ 32 bytes) with id COUNTERSIGN_KEY_ID (default "k1");
 * - COUNTERSIGN_PREVIOUS_SECRETS: "kid:secret,kid:secret" verify-only keys from earlier rotations.
 */
export function keyringFromEnv(env: Record<string, string | undefined> = process.env): Keyring {
  const secret = env.COUNTERSIGN_MASTER_SECRET;
  if (secret === undefined || secret === '') {
    throw new KeyError('no_active_key', 'COUNTERSIGN_MASTER_SECRET is not set (generate one with `countersign keygen`)');
  }
  const entries: KeyEntry[] = [hmacKey(env.COUNTERSIGN_KEY_ID || 'k1', secret)];
  for (const item of (env.COUNTERSIGN_PREVIOUS_SECRETS ?? '').split(',').filter(Boolean)) {
    const at = item.indexOf(':');
    if (at <= 0) throw new KeyError('invalid_key', 'COUNTERSIGN_PREVIOUS_SECRETS entries must be "kid:secret"');
    entries.push(hmacKey(item.slice(0, at), item.slice(at + 1), 'verify'));
  }
  return new Keyring(entries);
}

