export { type CallIndex, defaultCallIndex, type IndexedCall, memoryCallIndex } from './call-index.ts';
export type { CountersignContext } from './context.ts';
export { type ConversationMessage, conversationOfPrompt, type IntentOption, type TaskExtractor, type TaskSource } from './conversation.ts';
export { countersign } from './countersign.ts';
export { type ApprovalMode, CountersignGuard, type CountersignGuardOptions, type ModelToolCall } from './guard.ts';
export { guardModel } from './guard-model.ts';
export { guardTools } from './guard-tools.ts';
export {
  type Decision,
  type DecisionRecorder,
  gateDecisions,
  type RecordDecisionOutcome,
  type RecordUserDecisionInput,
  recordUserDecision,
  type ServiceDecisionsOptions,
  serviceDecisions,
} from './record-decision.ts';
export {
  type CountersignDenial,
  type CountersignReason,
  CountersignRefusal,
  type CountersignRefusalStatus,
  formatRefusal,
  parseRefusal,
  REFUSAL_PREFIX,
  refusalOf,
} from './refusal.ts';
export { CountersignRelayRefusal, relayedToolResults } from './relay-check.ts';
export { sdkToolRegistry, toolDefinitions } from './tool-definitions.ts';
export { approvalRequestReason, type CountersignApprovalStatus, countersignToolApproval, requestIdOfApproval } from './tool-approval.ts';
