import type { CallStatus, CompleteOutcome, Completion, Grant, ProposeOutcome } from '@countersign/core/gate';
import { type GuardedContext, guardCall } from '@countersign/core/integration';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { awaitApproval } from './await-approval.ts';
import { workflowGateSteps } from './authorize-step.ts';
import { executeStep, type GrantedTool } from './execute-step.ts';
import { IDEMPOTENT_STEP, type WorkflowSettings } from './settings.ts';

/** How one proposed call ended, as a workflow reports it. */
export type CallResult<Result = unknown> =
  | { status: 'succeeded'; proposalId: string; result: Result; completion: CompleteOutcome }
  | { status: 'failed'; proposalId: string; error: string; completion: CompleteOutcome }
  /**
   * "Ran, result unknown": the approval was spent by an earlier execution that recorded no
   * outcome (it crashed), or the gate answered `outcome_unknown` (its consume may have
   * committed) and the call no longer reads `proposed` (core's `UnknownOutcome`). The tool is not run again (at most once); `call` is Countersign's
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

/** What the workflow proposed for a call (from its `propose`): what authorize cross-checks. */
export interface ProposedCall {
  context: GuardedContext;
  toolName: string;
  arguments: unknown;
}

/**
 * The whole flow for one proposed call inside a workflow, on core's guarded-call state
 * machine (`guardCall`, every exchange a recorded step): wait durably for the decision (if
 * the call needs one), authorize (the approval is spent here, once; an approver's edit is
 * followed), run `tool` with the ledger's arguments, complete. Refusals are results, never
 * exceptions. `call` is what this workflow's `propose` sent for `proposed`.
 */
export async function runCall<Result>(settings: WorkflowSettings, proposed: ProposeOutcome, tool: GrantedTool<Result>, call: ProposedCall | undefined): Promise<CallResult<Result>> {
  if (proposed.status === 'rejected' || proposed.status === 'denied') return proposed;
  if (call === undefined) {
    const message = 'runCall takes a propose outcome returned by this workflow\'s propose (what authorize cross-checks comes from it)';
    return { status: 'not_approved', reason: 'unknown_call', message, proposalId: proposed.proposalId };
  }
  // Only a durable wake-up: the machine reads the decision again, in recorded steps.
  if (proposed.status === 'approval_required') await awaitApproval(settings, proposed);
  const gate = workflowGateSteps();
  const input = { context: call.context, callId: proposed.callId, toolName: call.toolName, arguments: call.arguments, recorded: proposed };
  const step = await guardCall(settings.port, input, { step: gate.step });
  switch (step.kind) {
    case 'run': {
      const { grant } = step;
      const ran = await executeStep(grant, gate.fresh(), tool);
      if (ran.status === 'unknown') return resultUnknown(settings, grant.proposalId, 'an earlier execution was cleared to run this call and recorded no outcome');
      const completion: Completion = ran.status === 'succeeded' ? { status: 'succeeded', result: ran.result } : { status: 'failed', error: ran.error };
      const completed = await completeStep(settings, grant, completion);
      return ran.status === 'succeeded'
        ? { status: 'succeeded', proposalId: grant.proposalId, result: ran.result, completion: completed }
        : { status: 'failed', proposalId: grant.proposalId, error: ran.error, completion: completed };
    }
    case 'wait':
      return { status: 'not_approved', reason: 'approval_pending', message: `approval request ${step.requestId} has not been approved`, proposalId: step.proposalId };
    case 'unknown':
      return resultUnknown(settings, step.proposalId, step.refusal.message);
    case 'refused': {
      const { refusal } = step;
      // Spent before this execution recorded the grant (a crash right after authorize): the call may have run.
      if (refusal.reason === 'already_consumed' && refusal.proposalId !== undefined) {
        const status = await callStatusStep(settings, refusal.proposalId);
        if (status.ok && status.call.state === 'dispatched') return resultUnknown(settings, refusal.proposalId, refusal.message, status.call);
      }
      return { status: refusal.status, reason: refusal.reason, message: refusal.message, proposalId: refusal.proposalId ?? proposed.proposalId };
    }
  }
}

async function resultUnknown(settings: WorkflowSettings, proposalId: string, message: string, known?: CallStatus): Promise<CallResult<never>> {
  const status = known === undefined ? await callStatusStep(settings, proposalId) : { ok: true as const, call: known };
  return { status: 'result_unknown', proposalId, call: status.ok ? status.call : undefined, message };
}
