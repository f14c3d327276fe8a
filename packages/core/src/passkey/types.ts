import type { AuditLog } from '../audit/types.ts';
import type { AuditFor } from '../ledger/types.ts';
import type { PasskeyAssertion, PasskeyEvidence } from '../ledger/passkey-evidence.ts';

/**
 * Passkey-signed approvals: under a rule with `approval: { passkey: required }` a
 * decision counts only with a WebAuthn assertion from the approver's own registered
 * passkey over a challenge derived from the exact call (see decision-claims.ts). The
 * server's keys alone can then no longer fabricate an approver's consent.
 */

export type { PasskeyAssertion, PasskeyEvidence } from '../ledger/passkey-evidence.ts';

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

/**
 * What authorized a registration, checked by the store inside the write that adds the
 * credential (so of two concurrent "first" registrations only one wins):
 * - `first`: the approver has no active passkey (the bootstrap: sign-in alone);
 * - `passkey`: `credentialId` is an active passkey of the same approver, which signed a
 *   step-up assertion for exactly this registration (checked before the write).
 */
/**
 * Why a registration may happen. `passkey`: a step-up by `credentialId`, for one
 * registration ceremony (`ceremony`, its WebAuthn challenge). A step-up is not spent by its
 * use (an authenticator that does not count signs the same bytes every time), so the
 * store spends the ceremony instead: it keeps the ceremony with the credential and refuses
 * an add on a ceremony a row of the approver already carries, so one step-up registers
 * one passkey. Comparing the challenge itself, never two timestamps, keeps the rule
 * whatever the clocks of the replicas that began and finished the ceremony say.
 * `first` may name its ceremony too (the server always does): spent the same way.
 */
export type EnrolAuthority = { by: 'first'; ceremony?: string | undefined } | { by: 'passkey'; credentialId: string; ceremony: string };

export type AddCredentialResult =
  | { ok: true }
  | {
      ok: false;
      /**
       * `credential_exists`: the id is registered already (to anyone); `not_first`: the
       * authority was `first` but the approver has an active passkey now; `authority_gone`:
       * the stepping-up passkey is not an active passkey of this approver (any more);
       * `ceremony_spent`: a passkey of this approver was registered on this ceremony
       * already (the step-up was used already, or replayed); `public_key_exists`: the
       * public key is registered already (to anyone, removed or not): one key, one
       * credential, so one touch is never two approvers' consent.
       */
      reason: 'credential_exists' | 'public_key_exists' | 'not_first' | 'authority_gone' | 'ceremony_spent';
    };

export interface AddCredentialOptions {
  /** Checked in the same write; without it nothing is checked but the id's uniqueness (tests, imports). */
  authority?: EnrolAuthority | undefined;
  /** Records appended in the same transaction (needs `auditLog`); see LedgerStore.auditLog. */
  audit?: AuditFor<AddCredentialResult> | undefined;
}

/**
 * Registered passkeys, kept in the store the ledger lives in (so every replica and
 * `audit verify` see the same keys). Backends pass `runPasskeyStoreConformance`.
 */
export interface PasskeyStore {
  /**
   * Present when this store's writes can append audit events to `auditLog`'s chain in the
   * same transaction: `add`/`remove` given `audit` then commit the change and its records
   * together or not at all (a failing append leaves no registered key).
   */
  readonly auditLog?: AuditLog | undefined;
  /**
   * Adds a credential; a credential id or a public key already registered (to anyone) is
   * refused and nothing changes; so is one whose `authority` does not hold inside the write.
   * Public keys are compared as stored text: the server stores them in one canonical form.
   */
  add(credential: PasskeyCredential, options?: AddCredentialOptions): Promise<AddCredentialResult>;
  get(credentialId: string): Promise<PasskeyCredential | undefined>;
  /** One approver's credentials (removed ones included), oldest first; every approver's when `approver` is undefined. */
  list(approver?: string | undefined): Promise<PasskeyCredential[]>;
  /**
   * Marks `credentialId` removed at `now`, only if it belongs to `approver` and is not
   * removed yet. True when it was. `audit`: records appended in the same transaction.
   */
  remove(approver: string, credentialId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean>;
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
