import { countersignWorkflow, type GuardedCallResult } from '@countersign/temporal/workflow';

export interface ApprovalWorkflowInput {
  sessionId: string;
  principal: string;
  call: { id: string; name: string; arguments: unknown };
}

/** The smallest workflow using the helpers: one model tool call, approved if policy asks. Bundled by the tests. */
export async function approvalWorkflow(input: ApprovalWorkflowInput): Promise<GuardedCallResult> {
  const countersign = countersignWorkflow({ activityOptions: { startToCloseTimeout: '1 minute' } });
  return countersign.callTool({ sessionId: input.sessionId, principal: input.principal }, input.call);
}
