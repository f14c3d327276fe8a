import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PasskeyCredential, PasskeyStore } from '@countersign/core/passkey';
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { RelyingParty } from './relying-party.ts';

/** How long a registration ceremony may take, start to finish. */
export const REGISTRATION_TTL_MS = 5 * 60_000;
const MAX_LABEL = 60;
/**
 * EdDSA, ES256, RS256: what authenticators ship and Node verifies without experimental
 * APIs. The library's default list starts with ML-DSA, which some authenticators (Chromium's
 * virtual one) pick, with multi-kilobyte signatures Node checks only experimentally.
 */
const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/**
 * The registration challenge is stateless, so any replica can finish a ceremony another
 * began: 16 random bytes, the deadline, and an HMAC binding both to the approver. Only
 * the signed-in approver's own session can ask for one, and a credential registers once.
 */
export function registrationChallenge(key: Buffer, approver: string, now: number): string {
  const nonce = randomBytes(16);
  const deadline = Buffer.alloc(8);
  deadline.writeBigUInt64BE(BigInt(now + REGISTRATION_TTL_MS));
  return Buffer.concat([nonce, deadline, mac(key, approver, nonce, deadline)]).toString('base64url');
}

export function isRegistrationChallenge(key: Buffer, approver: string, challenge: string, now: number): boolean {
  const bytes = Buffer.from(challenge, 'base64url');
  if (bytes.length !== 56) return false;
  const nonce = bytes.subarray(0, 16);
  const deadline = bytes.subarray(16, 24);
  if (Number(deadline.readBigUInt64BE()) <= now) return false;
  return timingSafeEqual(bytes.subarray(24), mac(key, approver, nonce, deadline));
}

function mac(key: Buffer, approver: string, nonce: Buffer, deadline: Buffer): Buffer {
  return createHmac('sha256', key).update('passkey-registration\0').update(approver, 'utf8').update('\0').update(nonce).update(deadline).digest();
}

/** The key for registration challenges: from the configured session secret (shared by replicas), else per process. */
export function registrationKey(sessionSecret: string | undefined): Buffer {
  return sessionSecret === undefined ? randomBytes(32) : createHmac('sha256', sessionSecret).update('countersign passkey registration').digest();
}

/** Options for `navigator.credentials.create`, excluding the approver's passkeys already registered. */
export async function registrationOptions(rp: RelyingParty, approver: string, challenge: string, existing: readonly PasskeyCredential[]) {
  return generateRegistrationOptions({
    rpName: 'Countersign',
    rpID: rp.rpId,
    userName: approver,
    // A stable, opaque user handle: the same approver gets the same one on every device.
    userID: new Uint8Array(createHash('sha256').update(`countersign approver\0${approver}`).digest().subarray(0, 16)),
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    attestationType: 'none',
    excludeCredentials: existing.filter((c) => c.removedAt === undefined).map((c) => ({ id: c.credentialId })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    timeout: REGISTRATION_TTL_MS,
  });
}

export type RegisterResult = { ok: true; credential: PasskeyCredential } | { ok: false; reason: 'invalid_registration' | 'credential_exists'; message: string };

/** Verifies a registration response (challenge ours and live, origin, RP id, user verification) and stores the credential. */
export async function registerPasskey(input: {
  store: PasskeyStore;
  rp: RelyingParty;
  key: Buffer;
  approver: string;
  label: string;
  response: unknown;
  now: number;
}): Promise<RegisterResult> {
  const label = input.label.trim().slice(0, MAX_LABEL) || 'passkey';
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
      expectedChallenge: (challenge) => isRegistrationChallenge(input.key, input.approver, challenge, input.now),
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (error) {
    return { ok: false, reason: 'invalid_registration', message: error instanceof Error ? error.message : String(error) };
  }
  if (!verified.verified) return { ok: false, reason: 'invalid_registration', message: 'the registration does not verify' };
  const { credential } = verified.registrationInfo;
  const stored: PasskeyCredential = {
    credentialId: credential.id,
    approver: input.approver,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    label,
    createdAt: input.now,
    ...(credential.transports === undefined ? {} : { transports: [...credential.transports] }),
  };
  const added = await input.store.add(stored);
  if (!added.ok) return { ok: false, reason: 'credential_exists', message: 'this passkey is already registered' };
  return { ok: true, credential: stored };
}
