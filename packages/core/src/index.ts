/**
 * The root export: what a newcomer needs to put a gate in front of their tools.
 * Build a `Gate` from a ledger, an audit log, a policy and a keyring; propose what the
 * model asked for; dispatch (or authorize and complete) once a person has approved.
 * Everything else lives under the subpath of the module it belongs to, mirroring the
 * design's modules: `@countersign/core/token`, `/canonical`, `/policy`, `/ledger`,
 * `/audit`, `/gate`, `/catalog`, `/events`, `/display`, `/session`, `/passkey`, `/testing`, `/store-kit`.
 */
export {
  type Agent,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CallState,
  type CallStatus,
  type CallStatusResult,
  type CompleteOutcome,
  type Completion,
  type CountersignStore,
  createGate,
  type DispatchOutcome,
  type DispatchRequest,
  Gate,
  type GateConfig,
  type GateOptions,
  type GatePort,
  type Grant,
  type ModelResponse,
  memoryStore,
  type ModelToolCall,
  type ProposeOutcome,
  type RelayCheckOutcome,
  type RelayedToolMessage,
  type RelayFailure,
  type RelayFailureReason,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolRegistry,
  type TokenResult,
  type WaitEdited,
  type WaitOutcome,
  type WaitSettled,
} from './gate/index.ts';
export { type KeyEntry, Keyring, hmacKey, keyringFromEnv } from './token/index.ts';
export { loadPolicy, loadPolicyFile, type PolicyEngine, type Verdict } from './policy/index.ts';
export { type LedgerStore, MemoryLedger } from './ledger/index.ts';
export { staticCatalog, type ToolCatalog } from './catalog/index.ts';
export { type AuditLog, JsonlAuditLog, MemoryAuditLog, verifyChain } from './audit/index.ts';
export { type Clock, systemClock } from './clock.ts';
export type { GateEvent, GateEvents } from './events/index.ts';
