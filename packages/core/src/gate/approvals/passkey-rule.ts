import { readPasskeyAssertion } from '../../passkey/assertion-shape.ts';
import { type DecisionToSign, passkeyChallenge, passkeyDecisionClaims } from '../../passkey/decision-claims.ts';
import type { PasskeyEvidence, PasskeyFailure, PasskeyVerifier } from '../../passkey/types.ts';
import type { Approver } from './eligibility.ts';
import type { DecisionView } from './types.ts';

export type PasskeyRuleOutcome =
  | { ok: true; evidence: PasskeyEvidence | undefined }
  | { ok: false; reason: PasskeyFailure; message: string };

/**
 * The passkey rule for one decision: a request opened under `passkey: required` takes
 * a decision only with an assertion from the approver's own passkey over the challenge
 * rebuilt here from the LEDGER's call and request (never from anything the client
 * sent but the assertion) and the decision being made. Requests without the rule
 * need nothing (an assertion sent anyway is ignored, not recorded).
 */
export async function checkPasskeyRule(
  view: DecisionView,
  approver: Approver,
  assertion: unknown,
  decision: Omit<DecisionToSign, 'approver'>,
  verifier: PasskeyVerifier | undefined,
  now: number,
): Promise<PasskeyRuleOutcome> {
  if (view.request.passkey !== 'required') return { ok: true, evidence: undefined };
  if (assertion === undefined || assertion === null) {
    return { ok: false, reason: 'passkey_required', message: 'this request needs a decision signed with your passkey' };
  }
  const read = readPasskeyAssertion(assertion);
  if (!read.ok) return { ok: false, reason: 'passkey_invalid', message: read.message };
  // Fail closed: a gate with no way to check a passkey takes no decision under the rule.
  if (verifier === undefined) return { ok: false, reason: 'passkey_invalid', message: 'no passkey verifier is configured here' };
  const challenge = passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { ...decision, approver: approver.id }));
  const checked = await verifier.verify({ approver: approver.id, assertion: read.assertion, challenge, now });
  return checked.ok ? { ok: true, evidence: checked.evidence } : checked;
}
