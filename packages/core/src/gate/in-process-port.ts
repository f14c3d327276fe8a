import { type Agent, DEFAULT_AGENT } from './agent.ts';
import type { ModelToolCall } from './propose.ts';
import type { CompleteOutcome, Completion, Grant } from './grant.ts';
import type { Gate } from './gate.ts';
import type { ProposeOutcome } from './outcomes.ts';
import type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, GatePort, ModelResponse, TokenResult, WaitOutcome } from './port.ts';
import type { CheckRelayedRequest, RelayCheckOutcome } from './relay/types.ts';
import { waitForDecision } from './wait-for-decision.ts';

/** The response's reference under either name, or why the two names disagree. */
export function responseRefOf(response: ModelResponse): string | undefined | { problem: string } {
  const { responseRef, modelResponseRef } = response;
  if (responseRef !== undefined && modelResponseRef !== undefined && responseRef !== modelResponseRef) {
    return { problem: 'responseRef and modelResponseRef name the same field and must be equal' };
  }
  return responseRef ?? modelResponseRef;
}

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

  /** Proposes each of the response's tool calls in order: one outcome per call. */
  async propose(response: ModelResponse): Promise<ProposeOutcome[]> {
    if (typeof response !== 'object' || response === null || !Array.isArray(response.toolCalls)) {
      return [{ status: 'rejected', reason: 'invalid_call', message: 'a model response needs a toolCalls list' }];
    }
    const ref = responseRefOf(response);
    if (typeof ref === 'object') return response.toolCalls.map(() => ({ status: 'rejected', reason: 'invalid_call', message: ref.problem }));
    const outcomes: ProposeOutcome[] = [];
    for (const toolCall of response.toolCalls) {
      const call: ModelToolCall = {
        runId: response.runId,
        sessionId: response.sessionId,
        principal: response.principal,
        callId: toolCall?.id,
        toolName: toolCall?.name,
        arguments: toolCall?.arguments,
        modelResponseRef: ref,
      };
      // One at a time: calls of a run are recorded in the order the model produced them.
      outcomes.push(await this.#gate.propose(call, this.#agent));
    }
    return outcomes;
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

  #agentOrDefault(): Agent {
    return this.#agent ?? DEFAULT_AGENT;
  }
}
