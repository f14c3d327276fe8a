import { appendsToSameChain } from '../audit/same-chain.ts';
import type { AuditEvent, AuditLog } from '../audit/types.ts';
import type { AuditFor } from '../ledger/types.ts';
import { passkeyChangeChallenge, passkeyEnrolClaims, passkeyRemoveClaims } from './change-claims.ts';
import { registrationEvent, removalEvent } from './change-events.ts';
import type { AddCredentialResult, EnrolAuthority, PasskeyAssertion, PasskeyCredential, PasskeyEvidence, PasskeyStore, PasskeyVerifier } from './types.ts';

/**
 * Changes to an approver's passkeys. Whoever holds an approver's password (or API token)
 * must not be able to add a passkey of their own and then sign approvals with it, nor
 * remove the approver's passkeys to make their next one a "first": so adding a second
 * (or later) passkey, and removing one, need a fresh user-verified assertion from one of
 * the approver's own active passkeys over claims naming exactly that change. The first
 * passkey of an approver who has none needs only sign-in (there is nothing to step up
 * from); it is audited like every change. Each change and its audit record commit
 * together (see `auditedPasskeyWrite`).
 */
export interface PasskeyChangeDeps {
  store: PasskeyStore;
  /** The gate's audit chain. */
  audit: AuditLog;
  /** The server's assertion check (origin, RP id, user verification, signature, counter). */
  verifier: PasskeyVerifier;
}

export type PasskeyChangeFailure =
  /** The approver has an active passkey: this change needs a step-up assertion from one of them. */
  | 'step_up_required'
  /** The step-up assertion does not verify: another approver's passkey, another operation's challenge, no UV, a bad signature or counter. */
  | 'step_up_invalid'
  | 'credential_exists'
  /** The credential's public key is registered already (to anyone): one key, one credential. */
  | 'public_key_exists'
  /** No such active passkey of this approver. */
  | 'not_found';

export type PasskeyChangeResult = { ok: true } | { ok: false; reason: PasskeyChangeFailure; message: string };

export interface EnrolInput {
  /** The verified new credential (its `approver` is the signed-in approver). */
  credential: PasskeyCredential;
  /** The registration ceremony's challenge, as the credential's clientDataJSON carries it. */
  registrationChallenge: string;
  algorithm?: number | undefined;
  /** Required when the approver has an active passkey: its assertion over `passkeyEnrolClaims`. */
  stepUp?: PasskeyAssertion | undefined;
  now: number;
}

/** Registers a passkey: the first one on sign-in alone, any later one only with a step-up. */
export async function enrolPasskey(deps: PasskeyChangeDeps, input: EnrolInput): Promise<PasskeyChangeResult> {
  const approver = input.credential.approver;
  const active = (await deps.store.list(approver)).filter((c) => c.removedAt === undefined);
  // One ceremony registers one passkey: a later registration on it (the same step-up, replayed) is refused `step_up_invalid`.
  let authority: EnrolAuthority = { by: 'first', ceremony: input.registrationChallenge };
  let stepUp: PasskeyEvidence | undefined;
  if (active.length > 0) {
    if (input.stepUp === undefined) return refused('step_up_required', 'you have a passkey already: confirm with it to add another');
    const checked = await deps.verifier.verify({
      approver,
      assertion: input.stepUp,
      challenge: passkeyChangeChallenge(passkeyEnrolClaims(approver, input.registrationChallenge)),
      now: input.now,
    });
    if (!checked.ok) return refused('step_up_invalid', `step-up assertion refused: ${checked.message}`);
    authority = { by: 'passkey', credentialId: checked.evidence.credentialId, ceremony: input.registrationChallenge };
    stepUp = checked.evidence;
  }
  const event = registrationEvent(input.credential, {
    algorithm: input.algorithm,
    challenge: input.registrationChallenge,
    authorizedBy: authority.by,
    stepUp,
  });
  const added = await auditedPasskeyWrite<AddCredentialResult>(
    deps,
    (audit) => deps.store.add(input.credential, { authority, audit }),
    (outcome) => (outcome.ok ? [event] : []),
    { ok: true },
  );
  if (added.ok) return { ok: true };
  switch (added.reason) {
    case 'credential_exists':
      return refused('credential_exists', 'this passkey is already registered');
    case 'public_key_exists':
      return refused('public_key_exists', 'this public key is already registered (to you or another approver): a passkey counts for one credential');
    case 'not_first':
      return refused('step_up_required', 'another passkey was registered meanwhile: confirm with it to add this one');
    case 'authority_gone':
      return refused('step_up_invalid', 'the passkey that confirmed this was removed meanwhile');
    case 'ceremony_spent':
      return refused('step_up_invalid', 'a passkey was registered on this registration ceremony already (a confirmation adds one passkey): start again');
  }
}

export interface RemoveInput {
  approver: string;
  credentialId: string;
  /** The server's nonce for this removal (checked by the server: its own, live, for this approver and credential). */
  nonce: string;
  /** An assertion of one of the approver's active passkeys (the one removed, or another) over `passkeyRemoveClaims`. */
  stepUp?: PasskeyAssertion | undefined;
  now: number;
}

/** The approver removes one of their passkeys, with a step-up. Decisions it signed stay verifiable (the key stays in the chain). */
export async function removePasskey(deps: PasskeyChangeDeps, input: RemoveInput): Promise<PasskeyChangeResult> {
  const target = await deps.store.get(input.credentialId);
  if (target === undefined || target.approver !== input.approver || target.removedAt !== undefined) return refused('not_found', 'no such passkey');
  if (input.stepUp === undefined) return refused('step_up_required', 'confirm with one of your passkeys to remove one');
  const checked = await deps.verifier.verify({
    approver: input.approver,
    assertion: input.stepUp,
    challenge: passkeyChangeChallenge(passkeyRemoveClaims(input.approver, input.credentialId, input.nonce)),
    now: input.now,
  });
  if (!checked.ok) return refused('step_up_invalid', `step-up assertion refused: ${checked.message}`);
  const event = removalEvent({ credentialId: input.credentialId, approver: input.approver, removedBy: 'approver', nonce: input.nonce, stepUp: checked.evidence }, input.now);
  const removed = await auditedPasskeyWrite<boolean>(
    deps,
    (audit) => deps.store.remove(input.approver, input.credentialId, input.now, audit),
    (outcome) => (outcome ? [event] : []),
    true,
  );
  return removed ? { ok: true } : refused('not_found', 'no such passkey');
}

/**
 * Lost-device recovery: an operator (someone with the store, not an approver's session)
 * removes a passkey; audited with actor `operator`. The approver's next passkey is then a
 * "first" again if they have none left: the bootstrap limit the README states.
 */
export async function removePasskeyAsOperator(
  deps: Pick<PasskeyChangeDeps, 'store' | 'audit'>,
  input: { credentialId: string; now: number },
): Promise<{ ok: true; approver: string } | { ok: false; reason: 'not_found'; message: string }> {
  const target = await deps.store.get(input.credentialId);
  if (target === undefined || target.removedAt !== undefined) return { ok: false, reason: 'not_found', message: 'no such active passkey' };
  const event = removalEvent({ credentialId: target.credentialId, approver: target.approver, removedBy: 'operator' }, input.now);
  const removed = await auditedPasskeyWrite<boolean>(
    deps,
    (audit) => deps.store.remove(target.approver, target.credentialId, input.now, audit),
    (outcome) => (outcome ? [event] : []),
    true,
  );
  return removed ? { ok: true, approver: target.approver } : { ok: false, reason: 'not_found', message: 'no such active passkey' };
}

/**
 * A passkey write with its audit record. When the store appends to the gate's chain (the
 * SQL stores, a memory store given the log), one transaction: the change and its record
 * commit together or not at all. Otherwise the record is appended FIRST (as the change
 * would be on `success`), then the store written: a key never becomes usable before its
 * record is durable; a write that then fails (a race lost) leaves a record of an attempt.
 */
export async function auditedPasskeyWrite<R>(
  deps: Pick<PasskeyChangeDeps, 'store' | 'audit'>,
  write: (audit: AuditFor<R> | undefined) => Promise<R>,
  audit: AuditFor<R>,
  success: R,
): Promise<R> {
  if (appendsToSameChain(deps.audit, deps.store.auditLog)) return write(audit);
  const events: readonly AuditEvent[] = audit(success);
  for (const event of events) await deps.audit.append(event);
  return write(undefined);
}

function refused(reason: PasskeyChangeFailure, message: string): PasskeyChangeResult {
  return { ok: false, reason, message };
}
