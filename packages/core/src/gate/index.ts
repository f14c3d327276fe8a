export type { Agent } from './common/agent.ts';
export {
  type DecisionFailure,
  type DecideOptions,
  type DecisionInput,
  type DecisionOutcome,
  type DefinitionReviewView,
  type DefinitionView,
  ApprovalService,
  type RequestView,
} from './approvals/index.ts';
export { DEFAULT_DEFINITION_REVIEW, type DefinitionReviewRule, type GateConfig } from './config.ts';
export type { SharedTools } from './common/tool-scope.ts';
export { findReview as findDefinitionReview } from './definitions/definition-review.ts';
export { type PinDeps, type PinFileEntry, pinTools, type PinToolsOutcome } from './definitions/pin-tools.ts';
export { MAX_REGISTERED_TOOLS, type RegisterToolsOutcome } from './definitions/register-tools.ts';
export type { ToolAdmission } from './definitions/admit-tool.ts';
export type { MatchingCallRequest } from './execute/authorize-matching-call.ts';
export { checkDecisionEvidence, type DecisionEvidenceProblem } from './approvals/decision-evidence.ts';
export type { DispatchRequest } from './execute/dispatch.ts';
export { digestResult } from './execute/complete.ts';
export { InProcessGatePort } from './in-process-port.ts';
export { type Approver, mayDecide } from './approvals/eligibility.ts';
export { expectedCallOf } from '../ledger/expected-call.ts';
export { checkInputSchema, type InputSchemaCheck, type InputSchemaProblem } from './definitions/input-schema.ts';
export { Gate } from './gate.ts';
export { createGate, type GateOptions } from './create-gate.ts';
export { type CountersignStore, memoryStore } from './store.ts';
export type {
  DeniedReason,
  DispatchOutcome,
  NotApprovedReason,
  ProposeOutcome,
} from './common/outcomes.ts';
export type { ModelToolCall } from './propose/propose.ts';
export { definitionDigest, type Tool, type ToolContext, type ToolDefinition, type ToolRegistry } from '../catalog/tools.ts';
export type { CallState, CallStatus, CompleteFailure, CompleteOutcome, Completion, Grant } from './execute/grant.ts';
export type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, TokenResult, WaitEdited, WaitOutcome, WaitSettled } from './common/port.ts';
export { type ProjectionDigests, RELAY_PROJECTIONS, type RelayProjection, resultProjections } from './relay/projections.ts';
export { type RelayedForms, relayedForms } from './relay/relayed-forms.ts';
export {
  type IntegrationRefusalReason,
  type RefusalReport,
  type RefusalReportOutcome,
  recordableRefusalText,
} from './relay/refusal-report.ts';
export { type ProviderOutputOutcome, type ProviderOutputReport, providerOutputDigest } from './relay/provider-output.ts';
export type { CheckRelayedRequest, RelayCheckOutcome, RelayedToolMessage, RelayFailure, RelayFailureReason } from './relay/types.ts';
export type { IntentConfig, IntentDecision, IntentMatcher, IntentMatchInput, IntentMatchResult, IntentTool } from './intent/types.ts';
export type { StoreProbe } from './common/probe-store.ts';
