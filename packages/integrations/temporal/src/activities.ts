import type { GatePort, ProposeOutcome } from '@countersign/core/gate';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FAILURE_TYPES, PROPOSE_ACTIVITY, type ProposeInput } from './workflow/contract.ts';

/**
 * Countersign's own activities, to register on the worker beside the tool activities.
 * `countersign.propose` records the model's calls with run id = the workflow id, read
 * from Temporal, never from the workflow's input. Its outcomes (proposal ids, request
 * ids, expiries fixed at mint time) land in the workflow history, so a replay reuses them.
 */
export function createCountersignActivities(port: GatePort) {
  return {
    async [PROPOSE_ACTIVITY](input: ProposeInput): Promise<ProposeOutcome[]> {
      const runId = Context.current().info.workflowExecution?.workflowId;
      if (runId === undefined) throw new Error('countersign.propose runs only as a workflow activity (the run id is the workflow id)');
      // `propose` is idempotent for the same call: a retried attempt gets the same proposal back.
      const outcomes = await port.propose({
        runId,
        sessionId: input.sessionId,
        principal: input.principal,
        responseRef: input.responseRef,
        toolCalls: input.toolCalls,
      });
      throwIfStoreFailed(outcomes);
      return outcomes;
    },
  };
}

/**
 * A call the store could not record (`store_unavailable`), or may have recorded without
 * saying so (`outcome_unknown`), is not a refusal of the call: the attempt fails retryably
 * and Temporal proposes again, which answers from the ledger (same call, same proposal).
 * Returned to the workflow instead, it would be history: a refusal no retry could undo.
 */
function throwIfStoreFailed(outcomes: readonly ProposeOutcome[]): void {
  const failed = outcomes.find((o) => o.status === 'rejected' && (o.reason === 'store_unavailable' || o.reason === 'outcome_unknown'));
  if (failed?.status !== 'rejected') return;
  throw ApplicationFailure.create({
    type: FAILURE_TYPES.storeUnavailable,
    message: `Countersign could not record the calls (${failed.reason}): ${failed.message}`,
    nonRetryable: false,
  });
}
