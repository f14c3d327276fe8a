import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import { emit } from '../../events/emit.ts';
import { settleDecidedReview } from '../definitions/admit-definition.ts';
import { appendAfterEffect, decisionEvent, decisionEventsByStatus } from './audit-decision.ts';
import type { AddDecisionResult, ApprovalRequest, Decision } from '../../ledger/types.ts';
import { auditsAtomically } from '../common/audited-write.ts';
import type { GateDeps } from '../config.ts';
import { isReviewProposal, reviewSubjectOf } from '../definitions/definition-review.ts';
import { type Approver, mayDecide } from './eligibility.ts';
import { callIds, errorMessage } from '../common/call-records.ts';
import { approveWithEdits } from './approve-with-edits.ts';
import { checkPasskeyRule } from './passkey-rule.ts';
import type { DecideOptions, DecisionFailure, DecisionInput, DecisionOutcome } from './types.ts';
import { viewForDecision } from './view-request.ts';
import { settleLostWrite } from '../common/settle-lost-write.ts';

const MAX_REASON_LENGTH = 1000;

/**
 * Records one decision by an authenticated approver on the LEDGER's request: nothing
 * in `input` but the request id, the choice, a reason and (approve-with-edits) the
 * edited arguments. Never throws; a decision that took effect is never reported failed.
 */
export async function decide(deps: GateDeps, approver: Approver, requested: DecisionInput, options: DecideOptions = {}): Promise<DecisionOutcome> {
  let input = requested;
  const invalid = invalidDecision(input);
  if (invalid !== undefined) return fail('invalid_decision', invalid);
  try {
    const found = await viewForDecision(deps, input.requestId);
    if (!found.ok) return fail(found.reason, found.reason === 'not_found' ? 'no such approval request' : found.message);
    const view = found.view;
    if (!mayDecide(view.request.eligible, approver, view.proposal.principal)) {
      return fail('not_eligible', `${approver.id} may not decide this request`);
    }
    // An edit that changes nothing is a plain approval of the recorded call (whoever calls: the server's routes or code in process).
    if (input.decision === 'approve' && input.editedArguments !== undefined && isUnchanged(deps, input.editedArguments, view.proposal.argsDigest)) {
      const { editedArguments: _unchanged, ...plain } = input;
      input = plain;
    }
    if (input.decision === 'approve' && input.editedArguments !== undefined) {
      if (isReviewProposal(view.proposal)) return fail('invalid_decision', 'a tool definition is approved as it is, never edited');
      return await approveWithEdits(deps, approver, view, input, options);
    }
    const now = deps.clock();
    // Before anything is written: under a passkey rule the decision needs the approver's own signature over it.
    const signed = await checkPasskeyRule(view, approver, input.passkeyAssertion, { decision: input.decision }, options.passkeys, now);
    if (!signed.ok) return fail(signed.reason, signed.message);
    const recorded = { approver: approver.id, decision: input.decision, reason: input.reason, at: now, ...(signed.evidence ? { passkey: signed.evidence } : {}) };
    const events = (r: AddDecisionResult) => (r.ok ? [decisionEvent(deps.keyring, view.proposal, r.request, recorded)] : []);
    // With a store that holds both, the decision and its one record (signed decision record,
    // minted token) commit together: a decision never takes effect without its record. The
    // record is built before the write, one for each status the decision can lead to (n of
    // m: a concurrent approval may complete the request first), and the store appends the
    // one of the status it wrote: nothing waits for the write's answer before the append.
    const atomic = auditsAtomically(deps);
    const tokenIdIfApproved = deps.newId();
    let result: AddDecisionResult;
    try {
      result = await deps.ledger.addDecision(view.request.requestId, recorded, {
        now,
        tokenIdIfApproved,
        audit: atomic ? { byStatus: decisionEventsByStatus(deps.keyring, view.proposal, view.request, recorded, tokenIdIfApproved) } : undefined,
      });
    } catch (error) {
      // Maybe only the reply was lost: the store says whether the decision stands.
      const settled = await settleLostWrite(() => requestWithDecision(deps, view.request, recorded), error);
      if (settled.settled === 'not_written') throw error;
      if (settled.settled === 'unknown') return fail('outcome_unknown', settled.message);
      result = { ok: true, request: settled.value };
    }
    if (!result.ok) return fail(result.reason, `decision refused: ${result.reason}`);
    // The decision has taken effect: from here on, nothing may report it as failed.
    emit(deps.events, {
      type: 'decided',
      at: now,
      requestId: result.request.requestId,
      approver: approver.id,
      decision: input.decision,
      status: result.request.status,
      ...callIds(view.proposal),
    });
    // Two steps only with an unrelated audit log: there a missing record is reported, not thrown.
    const audited = atomic || (await appendAfterEffect(deps.audit, events(result)));
    const subject = reviewSubjectOf(view.proposal);
    // A decided definition review moves the pin now (calls would also apply it, lazily, on their next look).
    if (subject !== undefined) await settleDecidedReview(deps, subject.toolName, result.request, approver.id).catch(() => undefined);
    return audited ? { ok: true, request: result.request } : { ok: true, request: result.request, auditRecorded: false };
  } catch (error) {
    return fail('store_unavailable', `ledger or audit store failed: ${errorMessage(error)}`);
  }
}

/**
 * The request as stored now, if it holds `decision` (this approver, choice and time)
 * and `before` did not: the decision this step wrote. An approver decides a request
 * once, so no other write can have put it there.
 */
async function requestWithDecision(deps: GateDeps, before: ApprovalRequest, decision: Decision): Promise<ApprovalRequest | undefined> {
  const same = (d: Decision) => d.approver === decision.approver && d.decision === decision.decision && d.at === decision.at;
  if (before.decisions.some(same)) return undefined;
  const now = await deps.ledger.getApprovalRequest(before.requestId);
  return now?.decisions.some(same) ? now : undefined;
}

/** Whether `edited` canonicalizes to the recorded arguments; arguments that do not canonicalize are left for the edit path to refuse, typed. */
function isUnchanged(deps: GateDeps, edited: unknown, argsDigest: string): boolean {
  try {
    return canonicalizeArguments(edited, deps.argumentLimits).digest === argsDigest;
  } catch {
    return false;
  }
}

function fail(reason: DecisionFailure, message: string): DecisionOutcome {
  return { ok: false, reason, message };
}

/**
 * Why `input` is not a decision, or undefined. The type says 'approve' | 'deny', but
 * callers reach this from JSON and other languages: anything else ('reject', 'DENY',
 * undefined) is refused here, before any store sees it, never counted as an approval.
 */
function invalidDecision(input: DecisionInput): string | undefined {
  if (typeof input !== 'object' || input === null) return 'a decision must be an object';
  if (typeof input.requestId !== 'string' || input.requestId.length === 0) return 'requestId must be a non-empty string';
  const decision: unknown = input.decision;
  if (decision !== 'approve' && decision !== 'deny') return `decision must be "approve" or "deny", not ${JSON.stringify(decision) ?? 'undefined'}`;
  if (input.reason !== undefined && (typeof input.reason !== 'string' || input.reason.length > MAX_REASON_LENGTH)) {
    return `reason must be a string of at most ${MAX_REASON_LENGTH} characters`;
  }
  if (decision === 'deny' && input.editedArguments !== undefined) return 'edited arguments only go with approve';
  return undefined;
}
