import type { GatePort } from '@countersign/core';
import { type CallIndex, type IntentOption, intentTask, memoryCallIndex } from '@countersign/core/integration';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { type ContextSource, resolveContext, type RuntimeView } from './context.ts';
import { conversationOfRequest } from './conversation.ts';
import { guardToolCall } from './guard-call.ts';
import { ModelResponses } from './record-calls.ts';
import type { CountersignDenial } from './refusal.ts';
import { checkRelayedMessages } from './relay-check.ts';
import { countersignState, type RecordedCall } from './state.ts';

export interface CountersignMiddlewareOptions {
  /** The gate: `gate.port(agent)` in process, or `createClient(...)` from `@countersign/client`. */
  port: GatePort;
  /**
   * Run, session and principal, from the app server's own state: fixed, or read from
   * the runtime the app invoked the agent with (`context`, `configurable.thread_id`).
   */
  context: ContextSource;
  /** How long a call waits for an approver before the graph is interrupted (server-side agents). Default 0. */
  waitMs?: number | undefined;
  /** Check the tool results relayed to the model against the recorded ones before each model call (CASA check 5). Default true. */
  checkRelayed?: boolean | undefined;
  /** Called with every refusal (also returned to the model as an error `ToolMessage`). */
  onRefusal?: ((denial: CountersignDenial) => void) | undefined;
  /**
   * Where the refusals this middleware gave are remembered, so a refusal relayed back to
   * the model is trusted only when it was given here (never for its text). Default: in
   * memory, per middleware; give a durable `CallIndex` when a thread resumes in another process.
   */
  index?: CallIndex | undefined;
  /** Called when a call ran but `complete` could not record its result. */
  onCompletionFailure?: ((failure: { proposalId: string; reason: string; message: string }) => void) | undefined;
  /**
   * For a gate with an intent stage: where the user's current task comes from.
   * `wrapModelCall` derives it from the request's system message and messages when the
   * response has tool calls (`{ extractor }`, e.g. `createLocalExtractor()` from
   * `@countersign/semantic`), or the app names it (`{ task: (source) => ... }`). Only
   * the task sentence is proposed, never the messages; no task fails closed at the gate.
   */
  intent?: IntentOption | undefined;
}

interface CountersignStateView {
  messages: BaseMessage[];
  countersignCalls?: Record<string, RecordedCall> | undefined;
}

/**
 * Countersign for a LangChain v1 agent (`createAgent({ middleware: [countersignMiddleware(...)] })`):
 * - `wrapModelCall` records the tool calls of each model response in the ledger,
 *   together, from the model's own output; `afterModel` keeps the outcomes in the state;
 * - `wrapToolCall` runs a tool only after `authorize` for that exact call, with the
 *   ledger's arguments, then `complete`; unclassified tools are denied by policy; a call
 *   that needs approval interrupts with its Countersign request id and, on resume,
 *   runs only if Countersign says it was approved (an edit made there runs the edited
 *   call); refusals are error `ToolMessage`s with a typed reason;
 * - `beforeModel` checks relayed tool results (`checkRelayed`);
 * - with `intent`, the task proposed with a response's calls is derived from the model
 *   call's request in `wrapModelCall`.
 * Needs a checkpointer for interrupts (as every LangGraph interrupt does). Meant for
 * createAgent's default tool dispatch (`version: 'v2'`, one task per call): with `'v1'`
 * every call of a message runs in one task, which LangGraph re-runs after an interrupt,
 * so a call that ran before the interrupt is refused (`already_consumed`) on resume and
 * only the first approval request surfaces at a time (at most once still holds).
 * A model response whose process stops between the model node and `afterModel` leaves
 * its calls unrecorded in the state: they are refused (`unknown_call`), never run.
 */
export function countersignMiddleware(options: CountersignMiddlewareOptions) {
  const settings = {
    port: options.port,
    waitMs: options.waitMs ?? 0,
    index: options.index ?? memoryCallIndex(),
    onRefusal: options.onRefusal ?? (() => {}),
    onCompletionFailure: options.onCompletionFailure ?? (() => {}),
  };
  const checkRelayed = options.checkRelayed ?? true;
  const responses = new ModelResponses();
  return createMiddleware({
    name: 'CountersignMiddleware',
    stateSchema: countersignState,
    beforeModel: async (state, runtime) => {
      if (!checkRelayed) return undefined;
      const view = state as unknown as CountersignStateView;
      const context = resolveContext(options.context, runtime as RuntimeView);
      await checkRelayedMessages(options.port, { index: settings.index, runId: context.runId, context }, view.messages);
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      const message = await handler(request);
      if (AIMessage.isInstance(message)) {
        const context = resolveContext(options.context, request.runtime as RuntimeView);
        const task = () => intentTask(options.intent, () => conversationOfRequest(request), context, signalOf(request.runtime));
        await responses.record(options.port, context, message, task);
      }
      return message;
    },
    afterModel: (state, runtime) => {
      const view = state as unknown as CountersignStateView;
      const recorded = responses.take(resolveContext(options.context, runtime as RuntimeView).runId, view.messages);
      return recorded === undefined ? undefined : { countersignCalls: recorded };
    },
    wrapToolCall: async (request, handler) => {
      const view = request.state as unknown as CountersignStateView;
      const context = resolveContext(options.context, request.runtime as RuntimeView);
      const callId = request.toolCall.id;
      const recorded = typeof callId === 'string' ? view.countersignCalls?.[callId] : undefined;
      return guardToolCall(settings, context, recorded, request, handler);
    },
  });
}

function signalOf(runtime: unknown): AbortSignal | undefined {
  const signal = (runtime as { signal?: unknown } | undefined)?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}
