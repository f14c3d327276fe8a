import type { GatePort, ProposeOutcome } from '../gate/index.ts';
import type { CallIndex } from './call-index.ts';
import type { GuardedContext } from './guarded-call.ts';
import { type ConversationMessage, type IntentOption, intentTask } from './intent.ts';
import { proposeOrReject } from './propose.ts';

/** What every framework's guard is built from (each adds how it asks for approval). */
export interface IntegrationGuardOptions {
  /** The gate: `gate.port(agent)` in process, or `createClient(...)` from `@countersign/client`. */
  port: GatePort;
  /** Run, session and principal, from the app server's own state (never from messages a client sends or a serialized run state). */
  context: GuardedContext;
  /** Where proposals are remembered between a request (or run) and the next. Default: one in-memory index per process. */
  index?: CallIndex | undefined;
  /**
   * For a gate with an intent stage: where the user's current task comes from. The
   * wrapped model derives it from the model request whose response has tool calls
   * (`{ extractor }`, e.g. `createLocalExtractor()` from `@countersign/semantic`), or the
   * app names it (`{ task: (source) => ... }`). Only the task sentence is proposed,
   * never the conversation; no task (a failed extraction) fails closed at the gate.
   */
  intent?: IntentOption | undefined;
}

/** A tool call as the model produced it, in the framework-neutral form propose takes. */
export interface ResponseCall {
  id: string;
  name: string;
  /** The model's JSON text (or object), canonicalized strictly by the gate. */
  arguments: unknown;
}

/** The model request a response answered: its id, and the conversation an intent task is derived from. */
export interface ResponseSource {
  responseRef?: string | undefined;
  conversation: () => readonly ConversationMessage[];
  signal?: AbortSignal | undefined;
}

/**
 * Records the tool calls of one model response in the ledger, together, in the model's
 * order (CASA check 2: only calls a model response contained can run), with the task
 * when the guard has an `intent` option, and keeps each call the gate took (allowed or
 * waiting for approval) in the call index for a later request or resumption. One
 * outcome per call, in order. Never throws for the gate: an unreachable one is a
 * `store_unavailable` rejection per call.
 */
export async function proposeResponseCalls(
  guard: { port: GatePort; context: GuardedContext; index: CallIndex; intent: IntentOption | undefined },
  calls: readonly ResponseCall[],
  source: ResponseSource,
): Promise<ProposeOutcome[]> {
  if (calls.length === 0) return [];
  const task = await intentTask(guard.intent, source.conversation, guard.context, source.signal);
  const outcomes = await proposeOrReject(guard.port, {
    ...guard.context,
    ...(source.responseRef === undefined ? {} : { responseRef: source.responseRef }),
    ...task,
    toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
  });
  for (const [i, call] of calls.entries()) {
    const outcome = outcomes[i] as ProposeOutcome;
    if (outcome.status !== 'allowed' && outcome.status !== 'approval_required') continue;
    await guard.index.set(guard.context.runId, call.id, {
      proposalId: outcome.proposalId,
      requestId: outcome.status === 'approval_required' ? outcome.requestId : undefined,
      toolName: call.name,
      argsDigest: outcome.argsDigest,
    });
  }
  return outcomes;
}
