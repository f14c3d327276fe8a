import { inWorkflowContext } from '@temporalio/workflow';

/**
 * Workflow time, in milliseconds since the epoch. Inside the workflow sandbox the SDK
 * replaces `Date` with the workflow clock (the time of the current activation, replayed
 * from history), so this is deterministic there. Outside a workflow it would be the wall
 * clock, so it refuses. The only place the workflow helpers read time.
 */
export function workflowNow(): number {
  if (!inWorkflowContext()) throw new Error('workflowNow() is only deterministic inside a Temporal workflow');
  return Date.now();
}
