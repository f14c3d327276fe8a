export { type CountersignApprovalInterrupt, countersignInterrupts } from './approval-interrupt.ts';
export type { ContextSource, CountersignContext, RuntimeView } from './context.ts';
export { type ConversationMessage, conversationOfRequest, type IntentOption, type TaskExtractor, type TaskSource } from './conversation.ts';
export { type CountersignMiddlewareOptions, countersignMiddleware } from './middleware.ts';
export {
  type CountersignDenial,
  type CountersignReason,
  type CountersignRefusalStatus,
  formatRefusal,
  parseRefusal,
  refusalMessage,
  refusalOf,
} from './refusal.ts';
export { CountersignRelayRefusal, relayedToolResults } from './relay-check.ts';
export { countersignState, type RecordedCall } from './state.ts';
