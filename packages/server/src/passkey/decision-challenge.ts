import { canonicalizeArguments, CanonicalizationError } from '@countersign/core/canonical';
import type { Approver } from '@countersign/core/gate';
import { type PasskeyDecisionClaims, passkeyChallengeText, passkeyDecisionClaims } from '@countersign/core/passkey';
import type { Services } from '../app/services.ts';
import { eligibleView } from '../approvals/eligible-view.ts';
import { ApiError } from '../errors/api-error.ts';

export type DecisionAction = 'approve' | 'deny' | 'edit';

export interface DecisionChallenge {
  /** base64url SHA-256 of the RFC 8785 text of `claims`: what the passkey signs. */
  challenge: string;
  claims: PasskeyDecisionClaims;
}

/**
 * The claims and challenge for one decision the approver is about to make, built from
 * the LEDGER's call and request (the same function the gate rebuilds them with when the
 * decision arrives). For an edit, the edited arguments are canonicalized here as the
 * gate will; an "edit" that changes nothing is a plain approve, as `gate.approvals.decide` treats it.
 */
export async function decisionChallenge(
  services: Services,
  approver: Approver,
  requestId: string,
  action: DecisionAction,
  editedArguments: unknown,
): Promise<DecisionChallenge> {
  const view = await eligibleView(services, approver, requestId);
  // Nothing to sign for a request no decision can reach any more: say so, rather than hand out a challenge.
  if (view.status === 'expired') throw new ApiError('expired', 'this request has expired: there is nothing to sign');
  if (view.status !== 'pending') throw new ApiError('already_decided', `this request is ${view.status}: there is nothing to sign`);
  let editedArgsDigest: string | undefined;
  if (action === 'edit') {
    try {
      editedArgsDigest = canonicalizeArguments(editedArguments, services.gate.argumentLimits).digest;
    } catch (error) {
      if (error instanceof CanonicalizationError) throw new ApiError('invalid_arguments', `edited arguments refused: ${error.code}: ${error.message}`);
      throw error;
    }
    if (editedArgsDigest === view.proposal.argsDigest) editedArgsDigest = undefined;
  }
  const claims = passkeyDecisionClaims(view.proposal, view.request, { approver: approver.id, decision: action === 'deny' ? 'deny' : 'approve', editedArgsDigest });
  return { challenge: passkeyChallengeText(claims), claims };
}
