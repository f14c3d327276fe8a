import type { GatePort, ProposeOutcome } from '@countersign/core';
import { type IntentOption, intentTask, proposeOrReject, rememberRefusal } from '@countersign/core/integration';
import { type CallIndex, defaultCallIndex } from './call-index.ts';
import type { CountersignContext } from './context.ts';
import { conversationOfPrompt } from './conversation.ts';
import { type CountersignDenial, formatRefusal } from './refusal.ts';

/** A tool call as the model produced it (the provider's JSON text for the input). */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: string;
  providerExecuted?: boolean | undefined;
}

/** What to do with a call that needs a person's approval. */
export type ApprovalMode =
  /** Return the SDK's approval request (chat UIs); the decision is recorded in Countersign, not taken from the client's answer. */
  | 'ask'
  /** Wait up to `waitMs` for an approver to decide in Countersign (server-side agents); still pending: ask. */
  | { waitMs: number };

export interface CountersignGuardOptions {
  /** The gate: `gate.port(agent)` in process, or `createClient(...)` from `@countersign/client`. */
  port: GatePort;
  /** Run, session and principal, from the app server's own state (never from the client's messages). */
  context: CountersignContext;
  /** Where proposals are remembered between requests. Default: one in-memory index per process (`defaultCallIndex`). */
  index?: CallIndex | undefined;
  /** Default `'ask'`. */
  approval?: ApprovalMode | undefined;
  /**
   * For a gate with an intent stage: where the user's current task comes from. The
   * wrapped model derives it from the prompt of the model call whose response has tool
   * calls (`{ extractor }`, e.g. `createLocalExtractor()` from `@countersign/semantic`),
   * or the app names it (`{ task: (source) => ... }`). Only the task sentence is
   * proposed, never the prompt; no task (a failed extraction) fails closed at the gate.
   */
  intent?: IntentOption | undefined;
}

/**
 * The state one request's integration shares: the port, the server-side context, the
 * calls the model made in this request (proposed by the wrapped model, answered once by
 * `toolApproval`), the call index, and every refusal given (typed, for the app).
 *
 * Create one per request (per `generateText`/`streamText` call); share the `index`.
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
  /** Outcomes of calls the model made in this request, until `toolApproval` answered them. */
  readonly #unanswered = new Map<string, ProposeOutcome>();
  /** Every propose outcome of this request, to explain a refusal at execute time. */
  readonly #proposed = new Map<string, ProposeOutcome>();

  constructor(options: CountersignGuardOptions) {
    this.port = options.port;
    this.context = { runId: options.context.runId, sessionId: options.context.sessionId, principal: options.context.principal };
    this.index = options.index ?? defaultCallIndex();
    this.approval = options.approval ?? 'ask';
    this.intent = options.intent;
  }

  /**
   * Records the tool calls of one model response in the ledger, together, in the
   * model's order (CASA check 2: only calls a model response contained can run).
   * Never throws: a transport failure is a `store_unavailable` rejection per call.
   * With an `intent` option, `request` is the model call that produced the response:
   * the task proposed with the calls is derived from its prompt.
   */
  async proposeResponse(toolCalls: readonly ModelToolCall[], modelResponseRef?: string, request?: { prompt: unknown; signal?: AbortSignal | undefined }): Promise<void> {
    // Provider-executed calls run at the provider: nothing here could hold them, so they are not recorded.
    const calls = toolCalls.filter((call) => call.providerExecuted !== true);
    if (calls.length === 0) return;
    const task = await intentTask(this.intent, () => conversationOfPrompt(request?.prompt), this.context, request?.signal);
    const outcomes = await proposeOrReject(this.port, {
      ...this.context,
      ...(modelResponseRef === undefined ? {} : { modelResponseRef }),
      ...task,
      toolCalls: calls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.input })),
    });
    for (const [i, call] of calls.entries()) {
      const outcome = outcomes[i] as ProposeOutcome;
      this.#unanswered.set(call.toolCallId, outcome);
      this.#proposed.set(call.toolCallId, outcome);
      if (outcome.status === 'allowed' || outcome.status === 'approval_required') {
        await this.index.set(this.context.runId, call.toolCallId, {
          proposalId: outcome.proposalId,
          requestId: outcome.status === 'approval_required' ? outcome.requestId : undefined,
          toolName: call.toolName,
          argsDigest: outcome.argsDigest,
        });
      }
    }
  }

  /**
   * The outcome of a call the model made in this request, once: the second time the SDK
   * asks about the same call id it is revalidating a resent history, and gets the
   * resume path.
   */
  takeUnanswered(toolCallId: string): ProposeOutcome | undefined {
    const outcome = this.#unanswered.get(toolCallId);
    this.#unanswered.delete(toolCallId);
    return outcome;
  }

  /** The propose outcome of a call made in this request (for explaining refusals). */
  proposedOutcome(toolCallId: string): ProposeOutcome | undefined {
    return this.#proposed.get(toolCallId);
  }

  /** Records a refusal and returns it. */
  refuse(denial: CountersignDenial): CountersignDenial {
    this.refusals.push(denial);
    // What a later request may relay for this call: recognised by this record, never by its text format.
    rememberRefusal(this.index, this.context.runId, denial.toolCallId, formatRefusal(denial));
    return denial;
  }
}
