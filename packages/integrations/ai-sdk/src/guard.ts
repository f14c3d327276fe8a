import type { ProposeOutcome } from '@countersign/core';
import { IntegrationGuard, type IntegrationGuardOptions, proposeResponseCalls } from '@countersign/core/integration';
import { defaultCallIndex } from './call-index.ts';
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

/** The port, context, index (default `defaultCallIndex`) and intent every integration takes; the intent's task is derived from the prompt. */
export interface CountersignGuardOptions extends IntegrationGuardOptions {
  context: CountersignContext;
  /** Default `'ask'`. */
  approval?: ApprovalMode | undefined;
}

/**
 * The state one request's integration shares: the port, the server-side context, the
 * calls the model made in this request (proposed by the wrapped model, answered once by
 * `toolApproval`), the call index, and every refusal given (typed, for the app).
 *
 * Create one per request (per `generateText`/`streamText` call); share the `index`.
 */
export class CountersignGuard extends IntegrationGuard<ApprovalMode, CountersignDenial> {
  /** Outcomes of calls the model made in this request, until `toolApproval` answered them. */
  readonly #unanswered = new Map<string, ProposeOutcome>();
  /** Every propose outcome of this request, to explain a refusal at execute time. */
  readonly #proposed = new Map<string, ProposeOutcome>();

  constructor(options: CountersignGuardOptions) {
    super(options, { approval: 'ask', index: defaultCallIndex });
  }

  /**
   * Records the tool calls of one model response in the ledger, together, in the
   * model's order (CASA check 2: only calls a model response contained can run).
   * Never throws: a transport failure is a `store_unavailable` rejection per call.
   * With an `intent` option, `request` is the model call that produced the response:
   * the task proposed with the calls is derived from its prompt.
   */
  async proposeResponse(toolCalls: readonly ModelToolCall[], responseRef?: string, request?: { prompt: unknown; signal?: AbortSignal | undefined }): Promise<void> {
    // Provider-executed calls run at the provider: nothing here could hold them, so they are not recorded.
    const calls = toolCalls.filter((call) => call.providerExecuted !== true);
    const outcomes = await proposeResponseCalls(
      this,
      calls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.input })),
      { responseRef, conversation: () => conversationOfPrompt(request?.prompt), signal: request?.signal },
    );
    for (const [i, call] of calls.entries()) {
      const outcome = outcomes[i] as ProposeOutcome;
      this.#unanswered.set(call.toolCallId, outcome);
      this.#proposed.set(call.toolCallId, outcome);
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
    return this.remember(denial, denial.toolCallId, formatRefusal(denial));
  }
}
