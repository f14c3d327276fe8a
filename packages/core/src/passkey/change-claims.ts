import { createHash } from 'node:crypto';
import { serializeCanonical } from '../canonical/serialize.ts';

/**
 * What an approver's existing passkey signs to allow a change to their passkeys (a
 * "step-up"): adding another passkey, or removing one. Each names its purpose in `typ`
 * (as decision claims do), so an assertion made for a decision, for a removal or for
 * another registration never counts for this one.
 */
export const PASSKEY_ENROL_TYPE = 'countersign-passkey-enrol';
export const PASSKEY_REMOVE_TYPE = 'countersign-passkey-remove';
export const PASSKEY_CHANGE_VERSION = 1;

/** Adding a passkey: bound to the approver and to the one registration ceremony (its WebAuthn challenge). */
export interface PasskeyEnrolClaims {
  typ: typeof PASSKEY_ENROL_TYPE;
  v: typeof PASSKEY_CHANGE_VERSION;
  /** The approver adding a passkey. */
  apr: string;
  /** The registration ceremony's challenge (base64url), which the new credential's clientDataJSON carries. */
  reg: string;
}

/** Removing a passkey: bound to the approver, the credential, and a server-issued, short-lived nonce. */
export interface PasskeyRemoveClaims {
  typ: typeof PASSKEY_REMOVE_TYPE;
  v: typeof PASSKEY_CHANGE_VERSION;
  apr: string;
  /** The credential to remove. */
  cred: string;
  /** Issued by the server for this approver and credential, with a deadline (see the server's ceremony tokens). */
  nonce: string;
}

export function passkeyEnrolClaims(approver: string, registrationChallenge: string): PasskeyEnrolClaims {
  return { typ: PASSKEY_ENROL_TYPE, v: PASSKEY_CHANGE_VERSION, apr: approver, reg: registrationChallenge };
}

export function passkeyRemoveClaims(approver: string, credentialId: string, nonce: string): PasskeyRemoveClaims {
  return { typ: PASSKEY_REMOVE_TYPE, v: PASSKEY_CHANGE_VERSION, apr: approver, cred: credentialId, nonce };
}

/** The WebAuthn challenge for change claims: SHA-256 of their RFC 8785 text, as for decisions. */
export function passkeyChangeChallenge(claims: PasskeyEnrolClaims | PasskeyRemoveClaims): Uint8Array {
  return new Uint8Array(createHash('sha256').update(serializeCanonical(claims), 'utf8').digest());
}

export function passkeyChangeChallengeText(claims: PasskeyEnrolClaims | PasskeyRemoveClaims): string {
  return Buffer.from(passkeyChangeChallenge(claims)).toString('base64url');
}
