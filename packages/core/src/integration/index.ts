/**
 * What every framework integration (`@countersign/ai-sdk`, `/langchain`,
 * `/openai-agents`) shares, framework-neutral: the refusal text and its types, the
 * relay check before a model request, the call index. Light: type imports only from
 * the gate, no policy engine, parsers or file system.
 */
export { type CallIndex, type IndexedCall, memoryCallIndex, type RememberedResult } from './call-index.ts';
export type { CompletionFailure } from './grant-calls.ts';
export {
  type ApprovalState,
  approvalState,
  type CheckedContext,
  finishCall,
  type GuardedCallInput,
  type GuardedContext,
  type GateExchange,
  type GateStep,
  type GuardedRefusal,
  type GuardedStep,
  type GuardOptions,
  guardCall,
  type RecordedCall,
  recordedMismatch,
  type RefusedAtPropose,
  runGranted,
  type Target,
} from './guarded-call.ts';
export { IntegrationGuard } from './integration-guard.ts';
export { proposeOrReject, refusalAtPropose } from './propose.ts';
export { type IntegrationGuardOptions, proposeResponseCalls, type ResponseCall, type ResponseSource } from './response-calls.ts';
export { type NothingConsumed, settleUnknownOutcome, type UnknownOutcome } from './unknown-outcome.ts';
export {
  CountersignCallRefusal,
  type CountersignDenial,
  type CountersignReason,
  type CountersignRefusalStatus,
  formatRefusal,
  parseRefusal,
  REFUSAL_PREFIX,
  type RefusalText,
} from './refusal.ts';
export { CountersignRelayRefusal, checkRelayedOrThrow } from './relay.ts';
export { rememberedResult, rememberResult } from './remembered-result.ts';
export { type RefusalMemory, type RelayedMessage, relayChecked, rememberRefusal } from './relay-checked.ts';
export { auditingUnknownShapes, CountersignUnknownShape, unknownShape } from './unknown-shape.ts';
export { CountersignUnguardedTool } from './setup-error.ts';
export { frameworkToolRegistry } from './tool-registry.ts';
export { unreachable } from './unreachable.ts';
export { type ConversationMessage, type IntentOption, intentTask, type TaskExtractor, type TaskSource, textOfContent, textOfToolOutput } from './intent.ts';
