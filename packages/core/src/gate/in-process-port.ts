import { type Agent, DEFAULT_AGENT } from './agent.ts';
import type { CompleteOutcome, Completion, Grant } from './grant.ts';
import type { Gate } from './gate.ts';
import type { ProposeOutcome } from './outcomes.ts';
import type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, TokenResult, WaitOutcome } from './port.ts';
import type { RefusalReport, RefusalReportOutcome } from './relay/refusal-report.ts';
import type { CheckRelayedRequest, RelayCheckOutcome } from './relay/types.ts';
import { waitForDecision } from './wait-for-decision.ts';

/**
 * The in-process `GatePort`: the gate's own operations, bound to one agent. Every read
 * is owner-checked by the gate, so another agent's call or request is `not_found`.
 */
export class InProcessGatePort implements GatePort {
  readonly #gate: Gate;
  readonly #agent: Agent | undefined;

  constructor(gate: Gate, agent?: Agent) {
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
    return waitForDecision(this.#gate.deps, this.#gate.approvals, this.#agentOrDefault(), requestId, options);
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

  #agentOrDefault(): Agent {
    return this.#agent ?? DEFAULT_AGENT;
  }
}
