import { countersignWorkflow, type GuardedCallResult } from '@countersign/temporal/workflow';

export interface ApprovalWorkflowInput {
  sessionId: string;
  principal: string;
  call: { id: string; name: string; arguments: unknown };
  /** Start-to-close timeout of the activities, in ms (the crash test shortens it so the retry comes soon). */
  activityTimeoutMs?: number | undefined;
}

/** The smallest workflow using the helpers: one model tool call, approved if policy asks. Bundled by the tests. */
export async function approvalWorkflow(input: ApprovalWorkflowInput): Promise<GuardedCallResult> {
  const countersign = countersignWorkflow({ activityOptions: { startToCloseTimeout: input.activityTimeoutMs ?? 60_000 } });
  return countersign.callTool({ sessionId: input.sessionId, principal: input.principal }, input.call);
}
