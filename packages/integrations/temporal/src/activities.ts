import type { GatePort, ProposeOutcome } from '@countersign/core/gate';
import { Context } from '@temporalio/activity';
import { PROPOSE_ACTIVITY, type ProposeInput } from './workflow/contract.ts';

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
      return port.propose({
        runId,
        sessionId: input.sessionId,
        principal: input.principal,
        responseRef: input.responseRef,
        toolCalls: input.toolCalls,
      });
    },
  };
}
