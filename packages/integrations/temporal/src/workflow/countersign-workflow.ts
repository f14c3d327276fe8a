import { type ActivityOptions, ApplicationFailure, ActivityFailure, condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  FAILURE_TYPES,
  type GuardedCallResult,
  PROPOSE_ACTIVITY,
  type ProposeInput,
  type ProposeOutcome,
  type ToolEnvelope,
} from './contract.ts';
import { decisionSignal } from './signals.ts';
import { workflowNow } from './workflow-time.ts';

export interface CountersignWorkflowOptions {
  /** Options for the propose activity and the tool activities (a start-to-close timeout at least). */
  activityOptions: ActivityOptions;
}

/** The pending approval, as propose returned it: the expiry was fixed when the request was made. */
export interface PendingApproval {
  proposalId: string;
  requestId: string;
  expiresAt: number;
}

export type WaitResult = { status: 'signalled' } | { status: 'expired' };

/**
 * Workflow-side helpers. Call once at the top of the workflow function (it installs the
 * decision signal handler). The Countersign run id is the workflow id: the activities read
 * it from Temporal, so every call of this workflow derives the same per-run key after a
 * worker restart or a replay.
 *
 * Deterministic: no randomness, no wall clock (time comes from `workflowNow`, the
 * sandbox's workflow clock), and every gate answer is an activity result in history.
 */
export function countersignWorkflow(options: CountersignWorkflowOptions) {
  const signalled = new Set<string>();
  setHandler(decisionSignal, (signal) => {
    if (typeof signal?.requestId === 'string') signalled.add(signal.requestId);
  });
  const activities = proxyActivities<Record<string, (input: unknown) => Promise<unknown>>>(options.activityOptions);

  /** Records the model's calls (an activity). One outcome per call, in order; expiries are the gate's, fixed at mint time. */
  async function propose(input: ProposeInput): Promise<ProposeOutcome[]> {
    return (await activities[PROPOSE_ACTIVITY]!(input)) as ProposeOutcome[];
  }

  /**
   * Waits durably (a Temporal timer) for the decision signal of `pending`, until the
   * request's own expiry measured on the workflow clock. A signal only ends the wait: the
   * tool activity reads the decision from Countersign.
   */
  async function waitForDecision(pending: PendingApproval): Promise<WaitResult> {
    const remaining = pending.expiresAt - workflowNow();
    if (remaining <= 0) return signalled.has(pending.requestId) ? { status: 'signalled' } : { status: 'expired' };
    const woke = await condition(() => signalled.has(pending.requestId), remaining);
    return woke ? { status: 'signalled' } : { status: 'expired' };
  }

  /**
   * Schedules the tool activity `toolName` for a proposed call. The activity interceptor
   * authorizes (spending the approval), runs the tool with the LEDGER's arguments and
   * completes; any refusal comes back as a non-retryable ApplicationFailure.
   */
  async function runTool<R = unknown>(toolName: string, call: Omit<ToolEnvelope['countersign'], 'v'>, args: unknown): Promise<R> {
    const { proposalId, requestId, callId, sessionId, principal } = call;
    const envelope: ToolEnvelope = { countersign: { v: 1, proposalId, requestId, callId, sessionId, principal }, arguments: args };
    return (await activities[toolName]!(envelope)) as R;
  }

  /**
   * One model tool call end to end: propose, wait for the approval when policy asks for
   * one, run the tool through the guarded activity. Never throws for a refusal.
   */
  async function callTool<R = unknown>(
    response: Omit<ProposeInput, 'toolCalls'>,
    call: { id: string; name: string; arguments: unknown },
  ): Promise<GuardedCallResult<R>> {
    const [outcome] = await propose({ ...response, toolCalls: [call] });
    if (outcome === undefined) return { status: 'rejected', reason: 'no_outcome', message: 'propose returned no outcome' };
    if (outcome.status === 'denied') return outcome;
    if (outcome.status === 'rejected') return { status: 'rejected', reason: outcome.reason, message: outcome.message };
    const pending = outcome.status === 'approval_required' ? outcome : undefined;
    for (;;) {
      if (pending !== undefined && (await waitForDecision(pending)).status === 'expired') {
        return { status: 'expired', proposalId: pending.proposalId, requestId: pending.requestId, expiresAt: pending.expiresAt };
      }
      try {
        const ref = { proposalId: outcome.proposalId, requestId: pending?.requestId, callId: call.id, sessionId: response.sessionId, principal: response.principal };
        const result = await runTool<R>(call.name, ref, call.arguments);
        return { status: 'executed', proposalId: outcome.proposalId, result };
      } catch (error) {
        const failure = countersignFailure(error);
        if (failure === undefined) throw error;
        // An early or forged signal: the request is still pending, so wait on (nothing was spent).
        if (pending !== undefined && failure.type === FAILURE_TYPES.approvalRequired) {
          signalled.delete(pending.requestId);
          continue;
        }
        return { status: 'refused', proposalId: outcome.proposalId, failureType: failure.type, message: failure.message };
      }
    }
  }

  return { propose, waitForDecision, runTool, callTool, runId: () => workflowInfo().workflowId };
}

/** The Countersign refusal inside an activity failure, if that is what it is. */
export function countersignFailure(error: unknown): { type: string; message: string } | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure) || typeof cause.type !== 'string') return undefined;
  const known: readonly string[] = Object.values(FAILURE_TYPES);
  return known.includes(cause.type) ? { type: cause.type, message: cause.message } : undefined;
}
