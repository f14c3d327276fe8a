import type { Approver, DecisionFailure, DecisionInput, DecisionOutcome } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';
import { ApiError, OUTCOME_UNKNOWN_MESSAGE } from '../errors/api-error.ts';

export type DecisionSuccess = Extract<DecisionOutcome, { ok: true }>;

/**
 * Submits one decision by an authenticated approver to `gate.approvals.decide`, which applies every approval rule. `input` holds only what the approver chose; which call it is about
 * comes from the ledger. Failures are typed `ApiError`s whose messages describe
 * only the caller's own request. A decision that took effect is never reported as a
 * failure: if only its audit record is missing, the outcome says `auditRecorded: false`
 * and the routes pass that on to the approver.
 */
export async function submitDecision(services: Services, approver: Approver, input: DecisionInput): Promise<DecisionSuccess> {
  // The gate applies every approval rule (eligibility, once; an edit that changes nothing is a
  // plain approval); a request this approver may not decide fails as not_found, like a missing one.
  // Under a passkey rule the gate checks the assertion with the server's WebAuthn verifier.
  const passkeys = services.passkeys?.verifier();
  const outcome = await services.gate.approvals.decide(approver, input, passkeys === undefined ? {} : { passkeys });
  if (!outcome.ok) throw decisionError(outcome.reason, outcome.message);
  // Waiters and the webhook hear of it from the gate's events, like any other decision.
  return outcome;
}

function decisionError(reason: DecisionFailure, message: string): ApiError {
  switch (reason) {
    case 'not_found':
    case 'not_eligible':
      return new ApiError('not_found', 'no such approval request');
    case 'expired':
      return new ApiError('expired', 'the request has expired');
    case 'already_decided':
      return new ApiError('already_decided', 'the request was already decided');
    case 'duplicate_approver':
      return new ApiError('duplicate_approver', 'you already decided this request');
    case 'invalid_arguments':
      // About the caller's own edited arguments: which rule they broke helps them fix it.
      return new ApiError('invalid_arguments', `edited arguments refused: ${message}`);
    case 'invalid_decision':
      return new ApiError('invalid_request', message);
    case 'edit_denied_by_policy':
      // The approver asked for this call themself; saying policy refuses it is no leak.
      return new ApiError('edit_denied_by_policy', 'policy denies the edited call; the original call is still pending');
    case 'passkey_required':
      return new ApiError('passkey_required', 'this request must be decided with your passkey (send passkeyAssertion)');
    case 'passkey_invalid':
      // About the approver's own assertion (wrong call, decision, origin, signature...): telling them is no leak.
      return new ApiError('passkey_invalid', `passkey assertion refused: ${message}`);
    case 'store_unavailable':
      return new ApiError('store_unavailable', 'the approval store is unavailable');
    case 'outcome_unknown':
      // Not a refusal: the decision may stand (a reply lost after COMMIT). Same 503, saying so.
      return new ApiError('store_unavailable', OUTCOME_UNKNOWN_MESSAGE);
  }
}
