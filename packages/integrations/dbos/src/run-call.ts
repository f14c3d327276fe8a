import type { CallStatus, CompleteOutcome, Completion, Grant, ProposeOutcome } from '@countersign/core/gate';
import { settleUnknownOutcome } from '@countersign/core/integration';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { type ApprovalWait, type ApprovedTarget, awaitApproval } from './await-approval.ts';
import { authorizeStep, tokenStep } from './authorize-step.ts';
import { executeStep, type GrantedTool } from './execute-step.ts';
import { IDEMPOTENT_STEP, type WorkflowSettings } from './settings.ts';

/** How one proposed call ended, as a workflow reports it. */
export type CallResult<Result = unknown> =
  | { status: 'succeeded'; proposalId: string; result: Result; completion: CompleteOutcome }
  | { status: 'failed'; proposalId: string; error: string; completion: CompleteOutcome }
  /**
   * "Ran, result unknown": the approval was spent by an earlier execution that recorded no
   * outcome (it crashed), or the gate answered `outcome_unknown` (its consume may have
   * committed) and the call no longer reads `proposed`. The tool is not run again (at most once); `call` is Countersign's
   * record (`state: 'dispatched'`) for an operator to check the tool's own side effects.
   */
  | { status: 'result_unknown'; proposalId: string; call?: CallStatus | undefined; message: string }
  | { status: 'not_approved' | 'denied' | 'rejected'; reason: string; message: string; proposalId?: string | undefined };

/** Records the outcome in Countersign, in a step that can be retried (the same result again is a duplicate). */
export function completeStep(settings: WorkflowSettings, grant: Grant, completion: Completion): Promise<CompleteOutcome> {
  return DBOS.runStep(
    async (): Promise<CompleteOutcome> => {
      try {
        return await settings.port.complete(grant, completion);
      } catch (error) {
        // The tool's outcome stands; the call reads `dispatched` until a complete gets through.
        return { ok: false, reason: 'store_unavailable', message: error instanceof Error ? error.message : String(error) };
      }
    },
    { name: 'countersign.complete', ...IDEMPOTENT_STEP },
  );
}

export function callStatusStep(settings: WorkflowSettings, proposalId: string) {
  return DBOS.runStep(() => settings.port.callStatus(proposalId), { name: 'countersign.call-status', ...IDEMPOTENT_STEP });
}

/**
 * The whole flow for one proposed call inside a workflow: wait durably for the decision
 * (if the call needs one), authorize (the approval is spent here, once), run `tool` with
 * the ledger's arguments, complete. Refusals are results, never exceptions.
 */
export async function runCall<Result>(settings: WorkflowSettings, proposed: ProposeOutcome, tool: GrantedTool<Result>): Promise<CallResult<Result>> {
  if (proposed.status === 'rejected' || proposed.status === 'denied') return proposed;
  let target: ApprovedTarget | { proposalId: string; requestId?: undefined; edited?: undefined } = { proposalId: proposed.proposalId };
  if (proposed.status === 'approval_required') {
    const waited = await awaitApproval(settings, proposed);
    if (waited.status !== 'approved') return refusalOfWait(waited);
    target = waited;
  }
  let token: string | undefined;
  if (target.requestId !== undefined) {
    const issued = await tokenStep(settings, target.requestId);
    // No token (revoked or expired meanwhile): authorize without one says which.
    if (issued.ok) token = issued.token;
  }
  // The proposed call is cross-checked by its call id; an edited call is the approver's own.
  const callId = target.edited === undefined ? proposed.callId : target.edited.callId;
  const { outcome, fresh } = await authorizeStep(settings, { proposalId: target.proposalId, token, callId });
  if (outcome.status === 'authorized') {
    const ran = await executeStep(outcome.grant, fresh, tool);
    if (ran.status === 'unknown') return resultUnknown(settings, target.proposalId, 'an earlier execution was cleared to run this call and recorded no outcome');
    const completion: Completion = ran.status === 'succeeded' ? { status: 'succeeded', result: ran.result } : { status: 'failed', error: ran.error };
    const completed = await completeStep(settings, outcome.grant, completion);
    return ran.status === 'succeeded'
      ? { status: 'succeeded', proposalId: target.proposalId, result: ran.result, completion: completed }
      : { status: 'failed', proposalId: target.proposalId, error: ran.error, completion: completed };
  }
  if (outcome.status === 'approval_required') {
    return { status: 'not_approved', reason: 'approval_pending', message: `approval request ${outcome.requestId} has not been approved`, proposalId: outcome.proposalId };
  }
  // The gate cannot tell whether its consume committed: core's machine reads the call (in a
  // recorded step) and answers a true refusal (nothing spent) or `unknown` (never run here).
  if (outcome.status === 'not_approved' && outcome.reason === 'outcome_unknown') {
    const proposalId = outcome.proposalId ?? target.proposalId;
    const settled = await DBOS.runStep(() => settleUnknownOutcome(settings.port, proposalId, outcome.message), { name: 'countersign.settle-unknown', ...IDEMPOTENT_STEP });
    if (settled.kind === 'unknown') return resultUnknown(settings, proposalId, settled.refusal.message);
    return { ...settled.refusal, proposalId };
  }
  // Spent before this execution recorded the grant (a crash right after authorize): the call may have run.
  if (outcome.status === 'not_approved' && outcome.reason === 'already_consumed') {
    const status = await callStatusStep(settings, target.proposalId);
    if (status.ok && status.call.state === 'dispatched') return resultUnknown(settings, target.proposalId, outcome.message, status.call);
  }
  return { status: outcome.status, reason: outcome.reason, message: outcome.message, proposalId: outcome.proposalId ?? target.proposalId };
}

async function resultUnknown(settings: WorkflowSettings, proposalId: string, message: string, known?: CallStatus): Promise<CallResult<never>> {
  const status = known === undefined ? await callStatusStep(settings, proposalId) : { ok: true as const, call: known };
  return { status: 'result_unknown', proposalId, call: status.ok ? status.call : undefined, message };
}

function refusalOfWait(waited: Exclude<ApprovalWait, { status: 'approved' }>): CallResult<never> {
  const { proposalId, requestId } = waited;
  switch (waited.status) {
    case 'denied':
      return { status: 'denied', reason: 'approval_denied', message: `approval request ${requestId} was denied`, proposalId };
    case 'revoked':
      return { status: 'not_approved', reason: 'approval_revoked', message: `approval request ${requestId} was revoked`, proposalId };
    case 'consumed':
      return { status: 'not_approved', reason: 'already_consumed', message: `approval request ${requestId} was already used`, proposalId };
    case 'expired':
      return { status: 'not_approved', reason: 'expired', message: `approval request ${requestId} expired`, proposalId };
    case 'not_found':
      return { status: 'not_approved', reason: 'unknown_call', message: waited.message, proposalId };
    case 'edit_limit':
      return { status: 'not_approved', reason: 'approval_edited', message: waited.message, proposalId };
    case 'store_unavailable':
      return { status: 'not_approved', reason: 'store_unavailable', message: waited.message, proposalId };
  }
}
