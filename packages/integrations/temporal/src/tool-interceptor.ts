import type { CallStatusResult, GatePort } from '@countersign/core/gate';
import { type GuardedRefusal, guardCall, runGranted } from '@countersign/core/integration';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import type { Context } from '@temporalio/activity';
import { FAILURE_TYPES, isToolEnvelope, PROPOSE_ACTIVITY } from './workflow/contract.ts';

export interface ToolInterceptorOptions {
  /**
   * Activities that are not tools and run without a grant. Everything else is a tool:
   * deny by default, so an activity added later is guarded until listed here.
   */
  unguarded?: readonly string[] | undefined;
}

/**
 * The worker's activity interceptors: every tool activity goes through authorize, runs
 * with the ledger's arguments, then complete. Pass to `Worker.create({ interceptors: { activity: [...] } })`.
 */
export function countersignActivityInterceptors(port: GatePort, options: ToolInterceptorOptions = {}): ActivityInterceptorsFactory {
  const unguarded = new Set([PROPOSE_ACTIVITY, ...(options.unguarded ?? [])]);
  return (ctx) => ({ inbound: new CountersignToolInterceptor(port, ctx, unguarded) });
}

/**
 * The one checkpoint for tool activities (invariant 2). A refusal is a non-retryable
 * ApplicationFailure with a `FAILURE_TYPES` type: retrying could never pass, and a retried
 * attempt after the grant was spent must not run the tool again (at most once).
 */
export class CountersignToolInterceptor implements ActivityInboundCallsInterceptor {
  readonly #port: GatePort;
  readonly #ctx: Context;
  readonly #unguarded: ReadonlySet<string>;

  constructor(port: GatePort, ctx: Context, unguarded: ReadonlySet<string>) {
    this.#port = port;
    this.#ctx = ctx;
    this.#unguarded = unguarded;
  }

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { activityType, workflowExecution } = this.#ctx.info;
    if (this.#unguarded.has(activityType)) return next(input);
    const [envelope, ...extra] = input.args;
    if (!isToolEnvelope(envelope) || extra.length > 0) {
      throw refusal(FAILURE_TYPES.noGrant, `tool activity ${activityType} was scheduled without a Countersign call reference; it runs only through countersignWorkflow().runTool`);
    }
    const runId = workflowExecution?.workflowId;
    if (runId === undefined) throw refusal(FAILURE_TYPES.noGrant, `tool activity ${activityType} runs only from a workflow (the run id is the workflow id)`);
    const { proposalId, requestId, callId, sessionId, principal } = envelope.countersign;
    // The guarded-call state machine: the decision read from Countersign (an approver's edit
    // followed), the token, authorize cross-checking this workflow's run, this activity's tool,
    // the workflow's arguments, call id, session and principal (CASA checks 2-4).
    const guarded = { context: { runId, sessionId, principal }, callId, toolName: activityType, arguments: envelope.arguments, recorded: { proposalId, requestId } };
    const step = await guardCall(this.#port, guarded);
    // Still pending: nothing was spent, the workflow may wait on.
    if (step.kind === 'wait') throw refusal(FAILURE_TYPES.approvalRequired, `approval request ${step.requestId} is still pending`);
    // The approval may be spent and the call may have run: never retried, never an ordinary refusal.
    if (step.kind === 'unknown') throw refusal(FAILURE_TYPES.outcomeUnknown, step.refusal.message, step);
    if (step.kind === 'refused') return this.#refuse(proposalId, step.refusal);
    const { grant } = step;
    try {
      // The ledger's arguments, never the workflow's (invariant 4). The outcome is recorded with
      // `complete` by the guarded-call state machine's last step; the tool's result stands whatever
      // happens there (an unrecorded result leaves the call `dispatched`: ran, result unknown).
      return await runGranted(this.#port, grant, () => next({ ...input, args: [JSON.parse(grant.canonicalArgs)] }), {
        onCompletionFailure: (failure) => this.#ctx.log.warn('countersign: result not recorded', { proposalId, reason: failure.reason }),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw refusal(FAILURE_TYPES.toolFailed, `${activityType} failed: ${message}`);
    }
  }

  /** A refusal of the machine as Temporal's failure: typed, non-retryable unless the store was down (nothing spent). */
  async #refuse(proposalId: string, denial: GuardedRefusal): Promise<never> {
    // After an edit the spent call is the edited one: its status is the one that says whether it ran.
    if (denial.reason === 'already_consumed') return this.#alreadyConsumed(denial.proposalId ?? proposalId);
    if (denial.reason === 'store_unavailable') throw unavailable(denial.message);
    if (denial.reason === 'approval_pending') throw refusal(FAILURE_TYPES.approvalRequired, denial.message, denial);
    const type = denial.status === 'denied' ? FAILURE_TYPES.denied : FAILURE_TYPES.notApproved;
    throw refusal(type, `${denial.status}: ${denial.reason}: ${denial.message}`, denial);
  }

  /** A replayed attempt: the grant is spent. The details say whether it ran ("dispatched": ran, result unknown). */
  async #alreadyConsumed(proposalId: string): Promise<never> {
    const status: CallStatusResult = await this.#port.callStatus(proposalId);
    const state = status.ok ? status.call.state : 'unknown';
    const meaning = state === 'dispatched' ? 'ran, result unknown' : state;
    throw refusal(FAILURE_TYPES.alreadyConsumed, `the approval for ${proposalId} was already used (${meaning}); the tool is not run again`, status);
  }
}

/** The store is down: nothing was spent and nothing ran, so this one is retryable. */
function unavailable(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FAILURE_TYPES.storeUnavailable, message: `Countersign store unavailable: ${message}`, nonRetryable: false });
}

function refusal(type: string, message: string, details?: unknown): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: details === undefined ? [] : [details] });
}
