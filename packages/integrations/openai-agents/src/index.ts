export { type CallIndex, defaultCallIndex, type IndexedCall, memoryCallIndex } from './call-index.ts';
export type { CountersignContext } from './context.ts';
export { type ConversationMessage, conversationOfRequest, type IntentOption, type TaskExtractor, type TaskSource } from './conversation.ts';
export { countersign } from './countersign.ts';
export { type AppliedDecisions, applyCountersignDecisions, type CountersignApproval, countersignApprovals } from './decisions.ts';
export { type ApprovalMode, CountersignGuard, type CountersignGuardOptions, type ModelFunctionCall } from './guard.ts';
export { type AgentToolOptions, guardAgentTool } from './guard-agent-tool.ts';
export { guardModel, guardModelProvider } from './guard-model.ts';
export { CountersignHandoffRefusal, guardHandoff } from './guard-handoff.ts';
export { guardFunctionTool, guardTools, isAgentTool } from './guard-tools.ts';
export {
  type CountersignDenial,
  type CountersignReason,
  type CountersignRefusalStatus,
  formatRefusal,
  parseRefusal,
  REFUSAL_PREFIX,
  refusalOf,
} from './refusal.ts';
export { CountersignRelayRefusal, checkRelayedInput, relayedToolResults } from './relay-check.ts';
export { handoffDefinitions, sdkToolRegistry, toolDefinitions } from './tool-definitions.ts';
