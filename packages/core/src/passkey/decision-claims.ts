import { createHash } from 'node:crypto';
import { serializeCanonical } from '../canonical/serialize.ts';
import { type ClaimedCall, callClaimsOf } from '../ledger/expected-call.ts';
import type { ApprovalRequest } from '../ledger/types.ts';
import type { CallClaims } from '../token/format.ts';

/** Names what these bytes are, so a passkey challenge for a decision can never be mistaken for another signed object. */
export const PASSKEY_CLAIMS_TYPE = 'countersign-passkey-decision';
/**
 * 2: the claims name the approver (`apr`). Version 1 claims (no `apr`) are still verified
 * offline for records made before (see evidence-check.ts); the gate takes only version 2.
 */
export const PASSKEY_CLAIMS_VERSION = 2;
export type PasskeyClaimsVersion = 1 | typeof PASSKEY_CLAIMS_VERSION;

/**
 * What an approver's passkey signs: one decision on one call, exactly as the LEDGER
 * holds it (the call claims every signed object binds, see `CallClaims`). The WebAuthn challenge is SHA-256 of the RFC 8785 text of these claims, so
 * an assertion made for another call, another decision, other edited arguments or
 * another deadline carries another challenge and does not verify.
 */
export interface PasskeyDecisionClaims extends CallClaims {
  typ: typeof PASSKEY_CLAIMS_TYPE;
  v: PasskeyClaimsVersion;
  /** Approval request id. */
  req: string;
  /**
   * The approver deciding (version 2 on). One signature is one approver's consent: an
   * assertion re-sent under another approver's credential carries another challenge.
   */
  apr?: string | undefined;
  /** An edit is an `approve` of the edited arguments. */
  dec: 'approve' | 'deny';
  /** Approve-with-edits: SHA-256 (hex) of the canonical edited arguments; null otherwise. */
  edit: string | null;
  /** The request's deadline, milliseconds since the epoch. */
  exp: number;
}

export interface DecisionToSign {
  /** The deciding approver's authenticated id. */
  approver: string;
  decision: 'approve' | 'deny';
  /** Approve-with-edits: the digest of the canonical edited arguments. */
  editedArgsDigest?: string | undefined;
}

/**
 * The claims for `decision` on the ledger's `proposal` and `request`. `version` 1 only to
 * verify a record made before claims named the approver.
 */
export function passkeyDecisionClaims(
  proposal: ClaimedCall,
  request: Pick<ApprovalRequest, 'requestId' | 'expiresAt'>,
  decision: DecisionToSign,
  version: PasskeyClaimsVersion = PASSKEY_CLAIMS_VERSION,
): PasskeyDecisionClaims {
  return {
    typ: PASSKEY_CLAIMS_TYPE,
    v: version,
    req: request.requestId,
    ...(version === 1 ? {} : { apr: decision.approver }),
    ...callClaimsOf(proposal),
    dec: decision.decision,
    edit: decision.editedArgsDigest ?? null,
    exp: request.expiresAt,
  };
}

/** The WebAuthn challenge for `claims`: SHA-256 of their RFC 8785 (JCS) text, 32 bytes. */
export function passkeyChallenge(claims: PasskeyDecisionClaims): Uint8Array {
  return new Uint8Array(createHash('sha256').update(serializeCanonical(claims), 'utf8').digest());
}

/** The challenge as the browser's clientDataJSON carries it (base64url, no padding). */
export function passkeyChallengeText(claims: PasskeyDecisionClaims): string {
  return Buffer.from(passkeyChallenge(claims)).toString('base64url');
}
