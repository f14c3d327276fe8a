import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EnrolInput, PasskeyAssertion, PasskeyChangeFailure, PasskeyChangeResult, PasskeyCredential } from '@countersign/core/passkey';
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import { readCredential, readTransports } from './registration-input.ts';
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
  return ceremonyToken(key, 'passkey-registration', [approver], now);
}

export function isRegistrationChallenge(key: Buffer, approver: string, challenge: string, now: number): boolean {
  return isCeremonyToken(key, 'passkey-registration', [approver], challenge, now);
}

/**
 * The nonce a passkey removal's step-up signs (with the approver and the credential, see
 * core's `passkeyRemoveClaims`): made the same way as a registration challenge, bound to
 * this approver and this credential, live for REGISTRATION_TTL_MS.
 */
export function removalNonce(key: Buffer, approver: string, credentialId: string, now: number): string {
  return ceremonyToken(key, 'passkey-removal', [approver, credentialId], now);
}

export function isRemovalNonce(key: Buffer, approver: string, credentialId: string, nonce: string, now: number): boolean {
  return isCeremonyToken(key, 'passkey-removal', [approver, credentialId], nonce, now);
}

function ceremonyToken(key: Buffer, purpose: string, binding: readonly string[], now: number): string {
  const nonce = randomBytes(16);
  const deadline = Buffer.alloc(8);
  deadline.writeBigUInt64BE(BigInt(now + REGISTRATION_TTL_MS));
  return Buffer.concat([nonce, deadline, mac(key, purpose, binding, nonce, deadline)]).toString('base64url');
}

function isCeremonyToken(key: Buffer, purpose: string, binding: readonly string[], token: string, now: number): boolean {
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== 56 || bytes.toString('base64url') !== token) return false;
  const nonce = bytes.subarray(0, 16);
  const deadline = bytes.subarray(16, 24);
  if (Number(deadline.readBigUInt64BE()) <= now) return false;
  return timingSafeEqual(bytes.subarray(24), mac(key, purpose, binding, nonce, deadline));
}

function mac(key: Buffer, purpose: string, binding: readonly string[], nonce: Buffer, deadline: Buffer): Buffer {
  const hmac = createHmac('sha256', key).update(`${purpose}\0`);
  // Length-prefixed, so no two bindings run together into the same bytes.
  for (const part of binding) hmac.update(`${Buffer.byteLength(part, 'utf8')}:`).update(part, 'utf8').update('\0');
  return hmac.update(nonce).update(deadline).digest();
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

export type RegisterResult =
  | { ok: true; credential: PasskeyCredential }
  | { ok: false; reason: 'invalid_registration' | PasskeyChangeFailure; message: string };

/**
 * Verifies a registration response (challenge ours and live, origin, RP id, user
 * verification), then registers it under core's rule: the approver's first passkey on
 * sign-in alone, any later one only with `stepUp`, an assertion of one of their active
 * passkeys over the enrolment claims of THIS ceremony's challenge. The credential and its
 * `passkey_registered` record (public key included) commit together.
 */
export async function registerPasskey(input: {
  /** Core's rule, recorded in the gate's chain (`PasskeyServices.enrol`). */
  enrol: (input: EnrolInput) => Promise<PasskeyChangeResult>;
  rp: RelyingParty;
  key: Buffer;
  approver: string;
  label: string;
  response: unknown;
  stepUp?: PasskeyAssertion | undefined;
  now: number;
}): Promise<RegisterResult> {
  const label = input.label.trim().slice(0, MAX_LABEL) || 'passkey';
  // Everything that will be stored is checked before anything is: nothing malformed lands in the table.
  const transports = readTransports(input.response);
  if (!transports.ok) return { ok: false, reason: 'invalid_registration', message: transports.message };
  let challenge: string | undefined;
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
      expectedChallenge: (presented) => {
        const ours = isRegistrationChallenge(input.key, input.approver, presented, input.now);
        if (ours) challenge = presented;
        return ours;
      },
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (error) {
    return { ok: false, reason: 'invalid_registration', message: error instanceof Error ? error.message : String(error) };
  }
  if (!verified.verified || challenge === undefined) return { ok: false, reason: 'invalid_registration', message: 'the registration does not verify' };
  const { credential } = verified.registrationInfo;
  const read = readCredential(credential);
  if (!read.ok) return { ok: false, reason: 'invalid_registration', message: read.message };
  const stored: PasskeyCredential = {
    credentialId: credential.id,
    approver: input.approver,
    publicKey: read.value.publicKey,
    counter: credential.counter,
    label,
    createdAt: input.now,
    ...(transports.value === undefined ? {} : { transports: transports.value }),
  };
  // One step-up, one passkey: core refuses a second registration on this ceremony (its challenge).
  const enrolled = await input.enrol({
    credential: stored,
    registrationChallenge: challenge,
    algorithm: read.value.algorithm,
    stepUp: input.stepUp,
    now: input.now,
  });
  return enrolled.ok ? { ok: true, credential: stored } : enrolled;
}
