import { type Agent, DEFAULT_AGENT } from './common/agent.ts';
import { waitForDecision } from './approvals/wait-for-decision.ts';
import { ApprovalService } from './approvals/index.ts';
import { probeStore, type StoreProbe } from './common/probe-store.ts';
import { authorize } from './execute/authorize.ts';
import { authorizeMatchingCall, type MatchingCallRequest } from './execute/authorize-matching-call.ts';
import { callStatus } from './execute/call-status.ts';
import { complete } from './execute/complete.ts';
import { type GateConfig, type GateDeps, resolveConfig } from './config.ts';
import { type DispatchRequest, dispatch } from './execute/dispatch.ts';
import type { AuditReader } from '../audit/types.ts';
import { type EnrolInput, enrolPasskey, type PasskeyChangeResult, type RemoveInput, removePasskey } from '../passkey/passkey-changes.ts';
import type { PasskeyStore, PasskeyVerifier } from '../passkey/types.ts';
import type { CanonicalLimits } from '../canonical/limits.ts';
import type { GateEvents } from '../events/types.ts';
import type { CompleteOutcome, Completion, Grant } from './execute/grant.ts';
import { InProcessGatePort } from './in-process-port.ts';
import { rememberDeps } from './internal-deps.ts';
import type { DispatchOutcome, ProposeOutcome } from './common/outcomes.ts';
import type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, WaitOutcome } from './common/port.ts';
import { type ModelToolCall, propose } from './propose/propose.ts';
import { proposeModelResponse } from './propose/propose-response.ts';
import { type RegisterToolsOutcome, registerTools } from './definitions/register-tools.ts';
import { type PinFileEntry, pinTools, type PinToolsOutcome } from './definitions/pin-tools.ts';
import { admitTool, type ToolAdmission } from './definitions/admit-tool.ts';
import { toolVisibilitySafely } from '../policy/safe-visibility.ts';
import type { ToolVisibility } from '../policy/types.ts';
import { checkRelayed } from './relay/check-relayed.ts';
import type { CheckRelayedRequest, RelayCheckOutcome } from './relay/types.ts';
import type { RefusalReport, RefusalReportOutcome } from './relay/refusal-report.ts';
import { reportRefusal } from './relay/report-refusal.ts';
import { type ProviderOutputOutcome, type ProviderOutputReport, recordProviderOutput } from './relay/provider-output.ts';

/**
 * The gate: record what the model asked for, then let it run only once authorized.
 * Integrations wrap their framework's tool-execution hook around propose and either
 * `dispatch` (tools registered with the gate) or `authorize` → run → `complete`
 * (tools the framework or a durable engine runs itself).
 */
export class Gate {
  // Private: stores, clock and tool index are reached through the operations below, so
  // nothing outside the gate can write to a store behind the gate's back.
  readonly #deps: GateDeps;
  readonly approvals: ApprovalService;

  constructor(config: GateConfig) {
    this.#deps = resolveConfig(config);
    this.approvals = new ApprovalService(this.#deps);
    rememberDeps(this, this.#deps);
  }

  /**
   * Lifecycle events (proposed, decided, authorized...), each published after the
   * store committed it, whoever caused it: this process's HTTP routes, code calling
   * the gate directly, or (with a replica-aware bus) another replica. Subscribe only;
   * listeners re-read the store for anything they act on.
   */
  get events(): Pick<GateEvents, 'subscribe'> {
    return this.#deps.events;
  }

  /**
   * Readiness: whether the ledger store answers within `timeoutMs` (its `ping`, or one
   * read). For /readyz-style probes; reads and writes nothing, never throws.
   */
  probeStore(timeoutMs: number): Promise<StoreProbe> {
    return probeStore(this.#deps.ledger, timeoutMs);
  }

  /** The gate's clock (invariant 8): whoever compares times with what the gate records uses this one. */
  now(): number {
    return this.#deps.clock();
  }

  /** The audit chain, read-only: for audit views and chain verification. */
  get auditLog(): AuditReader {
    return this.#deps.audit;
  }

  /** The limits untrusted argument JSON is held to (depth, size), for callers that parse it first. */
  get argumentLimits(): Readonly<Partial<CanonicalLimits>> {
    return this.#deps.argumentLimits;
  }

  /**
   * Call when the model responds with a tool call, before anything executes. `agent`
   * is the authenticated agent runtime recording it (default: the in-process owner);
   * the run becomes that agent's on its first call.
   */
  propose(call: ModelToolCall, agent?: Agent): Promise<ProposeOutcome> {
    return propose(this.#deps, call, agent);
  }

  /**
   * Every tool call of one model response, recorded in one operation (one transaction
   * on SQLite and Postgres): one outcome per call, in the model's order, each as
   * `propose` would give it. `response.responseRef` is kept with every proposal.
   */
  proposeResponse(response: ModelResponse, agent?: Agent): Promise<ProposeOutcome[]> {
    return proposeModelResponse(this.#deps, response, agent);
  }

  /** A remote agent declares the definitions of the tools it runs itself (see `registerTools`). */
  registerTools(definitions: unknown, agent?: Agent): Promise<RegisterToolsOutcome> {
    return registerTools(this.#deps, definitions, agent);
  }

  /**
   * Whether `toolName`'s current definition is trusted now: a gateway hides a tool that
   * is not. A changed definition opens its review here, as it would on a call. With
   * `agent`, another agent's tool is `unknown_tool` (see admit-tool.ts).
   */
  admitTool(toolName: string, agent?: Agent): Promise<ToolAdmission> {
    return admitTool(this.#deps, toolName, agent);
  }

  /**
   * Whether policy denies `toolName` to `principal` whatever the arguments: an
   * integration leaves such a tool out of what it shows the model (an MCP gateway's
   * `tools/list`). Listing only; a call to a hidden tool is still proposed and refused
   * with its typed reason. Never throws.
   */
  toolVisibility(toolName: string, principal: string): Promise<ToolVisibility> {
    return toolVisibilitySafely(this.#deps.policy, toolName, principal);
  }

  /**
   * Registers an approver's passkey under the step-up rule (passkey/passkey-changes.ts):
   * the first on sign-in alone, any later one only with an assertion of an active one;
   * recorded as `passkey_registered` in this gate's chain, with the store change.
   */
  enrolPasskey(store: PasskeyStore, verifier: PasskeyVerifier, input: EnrolInput): Promise<PasskeyChangeResult> {
    return enrolPasskey({ store, audit: this.#deps.audit, verifier }, input);
  }

  /** The approver removes one of their passkeys, with a step-up; recorded as `passkey_removed` in this gate's chain. */
  removePasskey(store: PasskeyStore, verifier: PasskeyVerifier, input: RemoveInput): Promise<PasskeyChangeResult> {
    return removePasskey({ store, audit: this.#deps.audit, verifier }, input);
  }

  /** An operator pins tools (from a file): each becomes trusted under the given digest. */
  pinTools(entries: readonly PinFileEntry[], actor = 'operator'): Promise<PinToolsOutcome> {
    return pinTools(this.#deps, entries, actor);
  }

  /**
   * Verifies and consumes the approval (at most once) and returns a grant to run the
   * ledger's call; see `authorize` in authorize.ts for what a crash after it means.
   */
  authorize(request: AuthorizeRequest, agent?: Agent): Promise<AuthorizeOutcome> {
    return authorize(this.#deps, request, agent);
  }

  /** `authorize` for a runtime that has only the call it is about to make (checks 3 and 4): see authorize-matching-call.ts. */
  authorizeMatchingCall(request: MatchingCallRequest, agent?: Agent): Promise<AuthorizeOutcome> {
    return authorizeMatchingCall(this.#deps, request, agent);
  }

  /** Records the result of a granted call, once (idempotent per grant). */
  complete(grant: Grant, completion: Completion, agent?: Agent): Promise<CompleteOutcome> {
    return complete(this.#deps, grant, completion, agent);
  }

  /** authorize + run the registered tool + complete: only calls `agent` recorded, selected by the proposal id propose returned. */
  dispatch(request: DispatchRequest, agent?: Agent): Promise<DispatchOutcome> {
    return dispatch(this.#deps, request, agent);
  }

  /**
   * Waits until the request is decided, revoked, consumed or expired, or the wait ends
   * (`timeoutMs`, `signal`); only `agent`'s calls (default: the in-process owner). Never throws.
   */
  waitForDecision(requestId: string, agent?: Agent, options?: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<WaitOutcome> {
    return waitForDecision(this.#deps, this.approvals, agent ?? DEFAULT_AGENT, requestId, options);
  }

  /** proposed / dispatched ("ran, result unknown") / succeeded / failed. */
  callStatus(proposalId: string, agent?: Agent): Promise<CallStatusResult> {
    return callStatus(this.#deps, proposalId, agent);
  }

  /**
   * CASA check 5, data fidelity: are the tool results the runtime relays to the model
   * the ones recorded at `complete`? Only `agent`'s runs; every refusal is audited.
   */
  checkRelayed(request: CheckRelayedRequest, agent?: Agent): Promise<RelayCheckOutcome> {
    return checkRelayed(this.#deps, request, agent);
  }

  /** Audits a refusal an integration made itself (a message shape it cannot check), in `agent`'s run. */
  reportRefusal(report: RefusalReport, agent?: Agent): Promise<RefusalReportOutcome> {
    return reportRefusal(this.#deps, report, agent);
  }

  /** Records the digest of a hosted tool's output the provider produced, for `agent`'s call the provider ran (relay-checked later). */
  recordProviderOutput(report: ProviderOutputReport, agent?: Agent): Promise<ProviderOutputOutcome> {
    return recordProviderOutput(this.#deps, report, agent);
  }

  /** This gate as a `GatePort` bound to `agent` (default: the in-process owner). */
  port(agent?: Agent): GatePort {
    return new InProcessGatePort(this, agent);
  }
}
