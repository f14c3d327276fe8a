import type { Agent } from './common/agent.ts';
import type { CompleteOutcome, Completion, Grant } from './execute/grant.ts';
import type { ProposeOutcome } from './common/outcomes.ts';
import type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, TokenResult, WaitOutcome } from './common/port.ts';
import type { RefusalReport, RefusalReportOutcome } from './relay/refusal-report.ts';
import type { ProviderOutputOutcome, ProviderOutputReport } from './relay/provider-output.ts';
import type { CheckRelayedRequest, RelayCheckOutcome } from './relay/types.ts';

/**
 * The gate operations a port forwards, each for the agent it names (`Gate` has them all).
 * Named here, not imported from gate.ts, because the gate builds its ports: that would be a cycle.
 */
export interface AgentScopedGate {
  proposeResponse(response: ModelResponse, agent?: Agent): Promise<ProposeOutcome[]>;
  authorize(request: AuthorizeRequest, agent?: Agent): Promise<AuthorizeOutcome>;
  complete(grant: Grant, completion: Completion, agent?: Agent): Promise<CompleteOutcome>;
  waitForDecision(requestId: string, agent?: Agent, options?: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<WaitOutcome>;
  callStatus(proposalId: string, agent?: Agent): Promise<CallStatusResult>;
  checkRelayed(request: CheckRelayedRequest, agent?: Agent): Promise<RelayCheckOutcome>;
  reportRefusal(report: RefusalReport, agent?: Agent): Promise<RefusalReportOutcome>;
  recordProviderOutput(report: ProviderOutputReport, agent?: Agent): Promise<ProviderOutputOutcome>;
  readonly approvals: { token(requestId: string, agent?: Agent): Promise<TokenResult> };
}

/**
 * The in-process `GatePort`: the gate's own operations, bound to one agent. Every read
 * is owner-checked by the gate, so another agent's call or request is `not_found`.
 */
export class InProcessGatePort implements GatePort {
  readonly #gate: AgentScopedGate;
  readonly #agent: Agent | undefined;

  constructor(gate: AgentScopedGate, agent?: Agent) {
    this.#gate = gate;
    this.#agent = agent;
  }

  /** Records every tool call of the response in one operation (see `Gate.proposeResponse`): one outcome per call, in order. */
  propose(response: ModelResponse): Promise<ProposeOutcome[]> {
    return this.#gate.proposeResponse(response, this.#agent);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    return this.#gate.authorize(request, this.#agent);
  }

  complete(grant: Grant, completion: Completion): Promise<CompleteOutcome> {
    return this.#gate.complete(grant, completion, this.#agent);
  }

  waitForDecision(requestId: string, options?: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<WaitOutcome> {
    return this.#gate.waitForDecision(requestId, this.#agent, options);
  }

  token(requestId: string): Promise<TokenResult> {
    return this.#gate.approvals.token(requestId, this.#agent);
  }

  callStatus(proposalId: string): Promise<CallStatusResult> {
    return this.#gate.callStatus(proposalId, this.#agent);
  }

  checkRelayed(request: CheckRelayedRequest): Promise<RelayCheckOutcome> {
    return this.#gate.checkRelayed(request, this.#agent);
  }

  reportRefusal(report: RefusalReport): Promise<RefusalReportOutcome> {
    return this.#gate.reportRefusal(report, this.#agent);
  }

  recordProviderOutput(report: ProviderOutputReport): Promise<ProviderOutputOutcome> {
    return this.#gate.recordProviderOutput(report, this.#agent);
  }
}
