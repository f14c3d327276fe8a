import { type IntentOption, intentTask, proposeOrReject, rememberRefusal } from '@countersign/core/integration';
import type { GatePort, ProposeOutcome } from '@countersign/core';
import { type CallIndex, defaultCallIndex } from './call-index.ts';
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

export interface CountersignGuardOptions {
  /** The gate: `gate.port(agent)` in process, or `createClient(...)` from `@countersign/client`. */
  port: GatePort;
  /** Run, session and principal, from the app's own state (never from a serialized `RunState`). */
  context: CountersignContext;
  /** Where proposals are remembered between a run and its resumption. Default: one in-memory index per process. */
  index?: CallIndex | undefined;
  /** Default `'interrupt'`. */
  approval?: ApprovalMode | undefined;
  /**
   * For a gate with an intent stage: where the user's current task comes from. The
   * wrapped model derives it from the model request (`systemInstructions`, `input`)
   * whose response has function calls (`{ extractor }`, e.g. `createLocalExtractor()`
   * from `@countersign/semantic`), or the app names it (`{ task: (source) => ... }`).
   * Only the task sentence is proposed, never the input; no task fails closed at the gate.
   */
  intent?: IntentOption | undefined;
}

/**
 * The state one agent run's integration shares: the port, the app's context, the propose
 * outcome of every call the model made in this process, the call index (which outlives
 * the process when the app gives a durable one), and every refusal given (typed).
 *
 * Create one per run or per resumption; share the `index` between them.
 */
export class CountersignGuard {
  readonly port: GatePort;
  readonly context: CountersignContext;
  readonly index: CallIndex;
  readonly approval: ApprovalMode;
  readonly intent: IntentOption | undefined;
  /** Every refusal this guard gave, in order: what the app can log or render. */
  readonly refusals: CountersignDenial[] = [];
  /** Calls that ran but whose result `complete` could not record (they read `dispatched`). */
  readonly completionFailures: Array<{ proposalId: string; reason: string; message: string }> = [];
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
    this.port = options.port;
    this.context = { runId: options.context.runId, sessionId: options.context.sessionId, principal: options.context.principal };
    this.index = options.index ?? defaultCallIndex();
    this.approval = options.approval ?? 'interrupt';
    this.intent = options.intent;
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
    if (calls.length === 0) return;
    const task = await intentTask(this.intent, () => (request === undefined ? [] : conversationOfRequest(request)), this.context, request?.signal);
    const outcomes = await proposeOrReject(this.port, {
      ...this.context,
      ...(responseRef === undefined ? {} : { responseRef }),
      ...task,
      toolCalls: calls.map((call) => ({ id: call.callId, name: call.name, arguments: call.arguments })),
    });
    for (const [i, call] of calls.entries()) {
      const outcome = outcomes[i] as ProposeOutcome;
      this.#proposed.set(call.callId, outcome);
      this.#calls.set(call.callId, call);
      if (outcome.status === 'allowed' || outcome.status === 'approval_required') {
        await this.index.set(this.context.runId, call.callId, {
          proposalId: outcome.proposalId,
          requestId: outcome.status === 'approval_required' ? outcome.requestId : undefined,
          toolName: call.name,
          argsDigest: outcome.argsDigest,
        });
      }
    }
  }

  /** The propose outcome of a call the model made through this guard (undefined after a restart: use the index). */
  proposedOutcome(callId: string): ProposeOutcome | undefined {
    return this.#proposed.get(callId);
  }

  /** Records a refusal and returns it. */
  refuse(denial: CountersignDenial): CountersignDenial {
    this.refusals.push(denial);
    // What a later request may relay for this call: recognised by this record, never by its text format.
    rememberRefusal(this.index, this.context.runId, denial.callId, formatRefusal(denial));
    return denial;
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
