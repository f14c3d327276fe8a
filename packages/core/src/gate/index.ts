export { type Agent, DEFAULT_AGENT, DEFAULT_AGENT_ID, isOwnedBy, mayActFor } from './agent.ts';
export {
  type DecisionFailure,
  type DecisionInput,
  type DecisionOutcome,
  type DefinitionView,
  ApprovalService,
  type RequestView,
  type TokenOutcome,
} from './approvals.ts';
export type { GateConfig, GateDeps } from './config.ts';
export { checkDecisionEvidence, type DecisionEvidenceProblem } from './decision-evidence.ts';
export type { DispatchRequest } from './dispatch.ts';
export { digestResult } from './complete.ts';
export { InProcessGatePort } from './in-process-port.ts';
export { type Approver, eligibilityOf, mayDecide } from './eligibility.ts';
export { expectedCallOf } from './expected-call.ts';
export { checkInputSchema, type InputSchemaCheck, type InputSchemaProblem } from './input-schema.ts';
export { Gate } from './gate.ts';
export {
  type DeniedReason,
  type DispatchOutcome,
  type NotApprovedReason,
  type ProposeOutcome,
  type PublicOutcome,
  toPublicOutcome,
} from './outcomes.ts';
export type { ModelToolCall } from './propose.ts';
export { definitionDigest, type Tool, type ToolContext, type ToolDefinition, type ToolRegistry } from './tools.ts';
export type { CallState, CallStatus, CompleteFailure, CompleteOutcome, Completion, Grant } from './grant.ts';
export type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, TokenResult, WaitOutcome } from './port.ts';
