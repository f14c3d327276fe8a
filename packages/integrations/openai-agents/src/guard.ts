import { IntegrationGuard, type IntegrationGuardOptions, proposeResponseCalls } from '@countersign/core/integration';
import type { ProposeOutcome } from '@countersign/core';
import { defaultCallIndex } from './call-index.ts';
import type { CountersignContext } from './context.ts';
import { conversationOfRequest } from './conversation.ts';
import { type CountersignDenial, formatRefusal } from './refusal.ts';

/** A function call as the model produced it (the Responses `function_call` item: JSON text arguments). */
export interface ModelFunctionCall {
  callId: string;
  name: string;
  arguments: string;
}

/** What to do with a call that needs a person's approval. */
export type ApprovalMode =
  /** Interrupt the run (`result.interruptions`); the approver decides in Countersign, the app resumes. */
  | 'interrupt'
  /** Wait up to `waitMs` for an approver to decide in Countersign (server-side agents); still pending: interrupt. */
  | { waitMs: number };

/** The port, context, index and intent every integration takes; the intent's task is derived from the request's `systemInstructions` and `input`. */
export interface CountersignGuardOptions extends IntegrationGuardOptions {
  context: CountersignContext;
  /** Default `'interrupt'`. */
  approval?: ApprovalMode | undefined;
}

/**
 * The state one agent run's integration shares: the port, the app's context, the propose
 * outcome of every call the model made in this process, the call index (which outlives
 * the process when the app gives a durable one), and every refusal given (typed).
 *
 * Create one per run or per resumption; share the `index` between them.
 */
export class CountersignGuard extends IntegrationGuard<ApprovalMode, CountersignDenial> {
  /** Names of the tools and handoffs wrapped with this guard: the only ones the model may be offered. */
  readonly guarded = new Set<string>();
  /** Models wrapped with this guard (`cs.model`): an agent used as a tool must run on one. */
  readonly models = new WeakSet<object>();
  /** The tool objects wrapped with this guard (`cs.tools`, `cs.agentTool`): what an agent used as a tool may hold. */
  readonly wrapped = new WeakSet<object>();
  /** Propose outcomes of the calls the model made through this guard, by call id. */
  readonly #proposed = new Map<string, ProposeOutcome>();
  /** The calls of those responses not yet taken by a handoff, by call id. */
  readonly #calls = new Map<string, ModelFunctionCall>();

  constructor(options: CountersignGuardOptions) {
    super(options, { approval: 'interrupt', index: defaultCallIndex });
  }

  /**
   * Records the function calls of one model response in the ledger, together, in the
   * model's order, with the response id (CASA check 2: only calls a model response
   * contained can run). Never throws: a transport failure is a `store_unavailable`
   * rejection per call. With an `intent` option, `request` is the model request that
   * produced the response: the task proposed with the calls is derived from it.
   */
  async proposeResponse(
    calls: readonly ModelFunctionCall[],
    responseRef?: string,
    request?: { systemInstructions?: string | undefined; input: unknown; signal?: AbortSignal | undefined },
  ): Promise<void> {
    const outcomes = await proposeResponseCalls(
      this,
      calls.map((call) => ({ id: call.callId, name: call.name, arguments: call.arguments })),
      { responseRef, conversation: () => (request === undefined ? [] : conversationOfRequest(request)), signal: request?.signal },
    );
    for (const [i, call] of calls.entries()) {
      this.#proposed.set(call.callId, outcomes[i] as ProposeOutcome);
      this.#calls.set(call.callId, call);
    }
  }

  /** The propose outcome of a call the model made through this guard (undefined after a restart: use the index). */
  proposedOutcome(callId: string): ProposeOutcome | undefined {
    return this.#proposed.get(callId);
  }

  /** Records a refusal and returns it. */
  refuse(denial: CountersignDenial): CountersignDenial {
    return this.remember(denial, denial.callId, formatRefusal(denial));
  }

  /**
   * The call id of a handoff call the model made through this guard with `toolName` and
   * exactly `args`, once (the SDK does not pass the call id to a handoff).
   */
  takeCall(toolName: string, args: string): string | undefined {
    for (const [callId, call] of this.#calls) {
      if (call.name !== toolName || call.arguments !== args) continue;
      this.#calls.delete(callId);
      return callId;
    }
    return undefined;
  }
}
