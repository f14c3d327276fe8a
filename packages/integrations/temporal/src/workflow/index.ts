/**
 * `@countersign/temporal/workflow`: what runs inside the Temporal workflow sandbox. It
 * imports only `@temporalio/workflow` and types: no `node:*`, no crypto, no core runtime.
 */
export {
  DECISION_SIGNAL,
  type DecisionSignal,
  FAILURE_TYPES,
  type GuardedCallResult,
  isToolEnvelope,
  PROPOSE_ACTIVITY,
  type ProposeInput,
  type ProposeOutcome,
  type ToolEnvelope,
} from './contract.ts';
export { type CountersignWorkflowOptions, countersignFailure, countersignWorkflow, type PendingApproval, type WaitResult } from './countersign-workflow.ts';
export { decisionSignal } from './signals.ts';
export { workflowNow } from './workflow-time.ts';
