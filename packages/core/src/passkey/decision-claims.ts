import { createHash } from 'node:crypto';
import { serializeCanonical } from '../canonical/serialize.ts';
import type { ApprovalRequest, Proposal } from '../ledger/types.ts';

/** Names what these bytes are, so a passkey challenge for a decision can never be mistaken for another signed object. */
export const PASSKEY_CLAIMS_TYPE = 'countersign-passkey-decision';
export const PASSKEY_CLAIMS_VERSION = 1;

/**
 * What an approver's passkey signs: one decision on one call, exactly as the LEDGER
 * holds it. The WebAuthn challenge is SHA-256 of the RFC 8785 text of these claims, so
 * an assertion made for another call, another decision, other edited arguments or
 * another deadline carries another challenge and does not verify.
 */
export interface PasskeyDecisionClaims {
  typ: typeof PASSKEY_CLAIMS_TYPE;
  v: typeof PASSKEY_CLAIMS_VERSION;
  /** Approval request id. */
  req: string;
  run: string;
  sid: string;
  call: string;
  tool: string;
  /** Pinned tool-definition digest, null when the call has none. */
  def: string | null;
  /** SHA-256 (hex) of the canonical arguments as recorded. */
  args: string;
  /** The principal the call acts for. */
  sub: string;
  /** An edit is an `approve` of the edited arguments. */
  dec: 'approve' | 'deny';
  /** Approve-with-edits: SHA-256 (hex) of the canonical edited arguments; null otherwise. */
  edit: string | null;
  /** The request's deadline, milliseconds since the epoch. */
  exp: number;
}

export interface DecisionToSign {
  decision: 'approve' | 'deny';
  /** Approve-with-edits: the digest of the canonical edited arguments. */
  editedArgsDigest?: string | undefined;
}

/** The claims for `decision` on the ledger's `proposal` and `request`. */
export function passkeyDecisionClaims(
  proposal: Pick<Proposal, 'runId' | 'sessionId' | 'callId' | 'toolName' | 'definitionDigest' | 'argsDigest' | 'principal'>,
  request: Pick<ApprovalRequest, 'requestId' | 'expiresAt'>,
  decision: DecisionToSign,
): PasskeyDecisionClaims {
  return {
    typ: PASSKEY_CLAIMS_TYPE,
    v: PASSKEY_CLAIMS_VERSION,
    req: request.requestId,
    run: proposal.runId,
    sid: proposal.sessionId,
    call: proposal.callId,
    tool: proposal.toolName,
    def: proposal.definitionDigest ?? null,
    args: proposal.argsDigest,
    sub: proposal.principal,
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
