/**
 * Passkey-signed approvals: under a rule with `approval: { passkey: required }` a
 * decision counts only with a WebAuthn assertion from the approver's own registered
 * passkey over a challenge derived from the exact call (see decision-claims.ts). The
 * server's keys alone can then no longer fabricate an approver's consent.
 */

/** What a browser (or any client) sends: the fields of a WebAuthn assertion, each base64url. */
export interface PasskeyAssertion {
  /** The credential's id (base64url), as registered. */
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
  userHandle?: string | undefined;
}

/**
 * An assertion the server verified, kept with the decision and in its audit record:
 * enough to verify it again offline against the registered public key. `rpId` and
 * `origin` are the ones it was verified for (the signature covers both).
 */
export interface PasskeyEvidence extends PasskeyAssertion {
  rpId: string;
  origin: string;
}

/** One registered passkey of one approver. */
export interface PasskeyCredential {
  /** base64url credential id, unique across all approvers. */
  credentialId: string;
  /** The approver's authenticated id: only they may use or remove it. */
  approver: string;
  /** COSE public key, base64url, as the authenticator returned it at registration. */
  publicKey: string;
  /** Signature counter last seen (0 for authenticators that do not count). */
  counter: number;
  /** A name the approver chose, shown on the passkeys page. */
  label: string;
  transports?: string[] | undefined;
  createdAt: number;
  lastUsedAt?: number | undefined;
  /**
   * Set when the approver removed it: it verifies no new decision, but its public key
   * stays so `audit verify` can still check the decisions it signed.
   */
  removedAt?: number | undefined;
}

export type AddCredentialResult = { ok: true } | { ok: false; reason: 'credential_exists' };

/**
 * Registered passkeys, kept in the store the ledger lives in (so every replica and
 * `audit verify` see the same keys). Backends pass `runPasskeyStoreConformance`.
 */
export interface PasskeyStore {
  /** Adds a credential; a credential id already registered (to anyone) is refused and nothing changes. */
  add(credential: PasskeyCredential): Promise<AddCredentialResult>;
  get(credentialId: string): Promise<PasskeyCredential | undefined>;
  /** One approver's credentials (removed ones included), oldest first; every approver's when `approver` is undefined. */
  list(approver?: string | undefined): Promise<PasskeyCredential[]>;
  /** Marks `credentialId` removed at `now`, only if it belongs to `approver` and is not removed yet. True when it was. */
  remove(approver: string, credentialId: string, now: number): Promise<boolean>;
  /**
   * Records a verified use of a credential that is not removed: the counter moves to `counter` only if that is greater than
   * the stored one (or both are 0, for authenticators that do not count). One atomic
   * compare-and-set, so of two assertions with the same counter only one succeeds: false
   * means a replayed or cloned authenticator's assertion, and the decision must not count.
   */
  recordUse(credentialId: string, counter: number, at: number): Promise<boolean>;
}

/** Why a passkey decision was refused. */
export type PasskeyFailure =
  /** The request's rule requires a passkey and the decision carries no assertion. */
  | 'passkey_required'
  /** The assertion does not verify: wrong challenge (another call, decision or edit), origin, RP id, signature, counter, no user verification, unknown credential. */
  | 'passkey_invalid';

export type PasskeyCheck = { ok: true; evidence: PasskeyEvidence } | { ok: false; reason: PasskeyFailure; message: string };

/**
 * Verifies one assertion for one approver against an expected challenge (server side:
 * with the configured RP id and origin, updating the counter). The WebAuthn library
 * lives in the server package; core only states the rule and computes the challenge.
 */
export interface PasskeyVerifier {
  verify(input: { approver: string; assertion: PasskeyAssertion; challenge: Uint8Array; now: number }): Promise<PasskeyCheck>;
}
