import type { GatePort, ProposeOutcome } from '@countersign/core';
import { proposeOrReject } from '@countersign/core/integration';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { CountersignContext } from './context.ts';
import type { RecordedCall } from './state.ts';

type RecordedCalls = Record<string, RecordedCall>;

/**
 * Records the tool calls of one model response in the ledger, together and in the
 * model's order, with the message id as the response reference (CASA check 2: only
 * calls a model response contained can run). Called at `wrapModelCall`, on the model's
 * own output, before any `afterModel` hook or checkpoint could change it.
 * Never throws: an unreachable gate is a `store_unavailable` refusal per call.
 * `task` gives the task to propose with the calls (asked only when there are calls).
 */
export async function proposeModelCalls(
  port: GatePort,
  context: CountersignContext,
  message: AIMessage,
  task: () => Promise<{ task?: string }> = async () => ({}),
): Promise<RecordedCalls> {
  const calls = (message.tool_calls ?? []).filter((call) => typeof call.id === 'string' && call.id !== '');
  if (calls.length === 0) return {};
  const outcomes = await proposeOrReject(port, {
    ...context,
    ...(typeof message.id === 'string' ? { responseRef: message.id } : {}),
    ...(await task()),
    toolCalls: calls.map((call) => ({ id: call.id as string, name: call.name, arguments: call.args })),
  });
  const recorded: RecordedCalls = {};
  for (const [i, call] of calls.entries()) recorded[call.id as string] = recordOf(outcomes[i] as ProposeOutcome);
  return recorded;
}

/**
 * Hands the propose outcomes from `wrapModelCall` (the model node) to `afterModel`,
 * which writes them into the graph state. Keyed by run and AI message id. An AI
 * message that no model call of this process produced (written into the state by
 * someone else, or produced before a restart) finds nothing here: its calls stay
 * unrecorded and are refused as `unknown_call`.
 */
export class ModelResponses {
  readonly #pending = new Map<string, RecordedCalls>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** Proposes the message's calls (with `task`'s task) and keeps the outcomes for `afterModel`. Gives the message an id when the model gave none. */
  async record(port: GatePort, context: CountersignContext, message: AIMessage, task?: () => Promise<{ task?: string }>): Promise<void> {
    if ((message.tool_calls ?? []).length === 0) return;
    message.id ??= `countersign-${globalThis.crypto.randomUUID()}`;
    const recorded = await proposeModelCalls(port, context, message, task);
    this.#pending.set(key(context.runId, message.id), recorded);
    if (this.#pending.size > this.#maxEntries) {
      const oldest = this.#pending.keys().next();
      if (oldest.done !== true) this.#pending.delete(oldest.value);
    }
  }

  /**
   * The outcomes for the newest AI message of the state. Kept (bounded) rather than
   * taken once, so a retried `afterModel` node still finds them.
   */
  take(runId: string, messages: readonly BaseMessage[]): RecordedCalls | undefined {
    const message = messages.at(-1);
    if (!AIMessage.isInstance(message) || typeof message.id !== 'string') return undefined;
    return this.#pending.get(key(runId, message.id));
  }
}

// A JSON pair cannot collide the way `${runId}/${id}` could.
const key = (runId: string, messageId: string) => JSON.stringify([runId, messageId]);

function recordOf(outcome: ProposeOutcome): RecordedCall {
  switch (outcome.status) {
    case 'allowed':
      return { status: 'allowed', proposalId: outcome.proposalId };
    case 'approval_required':
      return { status: 'approval_required', proposalId: outcome.proposalId, requestId: outcome.requestId };
    case 'denied':
      return { status: 'denied', proposalId: outcome.proposalId, reason: outcome.reason, message: outcome.message };
    default:
      return { status: 'rejected', reason: outcome.reason, message: outcome.message };
  }
}
