import type { AuthorizeOutcome, CallStatusResult, GatePort } from '@countersign/core/gate';
import { runGranted, settleUnknownOutcome } from '@countersign/core/integration';
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
    const { proposalId, requestId } = envelope.countersign;
    let token: string | undefined;
    if (requestId !== undefined) {
      const issued = await this.#port.token(requestId);
      if (!issued.ok) {
        // Still pending: nothing was spent, the workflow may wait on.
        if (issued.reason === 'not_approved' && issued.status === 'pending') {
          throw refusal(FAILURE_TYPES.approvalRequired, `approval request ${requestId} is still pending`);
        }
        if (issued.reason === 'not_approved' && issued.status === 'consumed') return this.#alreadyConsumed(proposalId);
        if (issued.reason === 'store_unavailable') throw unavailable(issued.message);
        throw refusal(FAILURE_TYPES.notApproved, `no token for ${requestId}: ${issued.reason}${issued.status ? ` (${issued.status})` : ''}`, issued);
      }
      token = issued.token;
    }
    const authorized = await this.#port.authorize({
      proposalId,
      token,
      // Cross-checks: this workflow's run, this activity's tool, the workflow's arguments (CASA checks 2-4).
      runId,
      toolName: activityType,
      arguments: envelope.arguments,
    });
    if (authorized.status !== 'authorized') return this.#refuse(proposalId, authorized);
    const { grant } = authorized;
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

  async #refuse(proposalId: string, outcome: Exclude<AuthorizeOutcome, { status: 'authorized' }>): Promise<never> {
    if (outcome.status === 'not_approved' && outcome.reason === 'already_consumed') return this.#alreadyConsumed(proposalId);
    if (outcome.status === 'not_approved' && outcome.reason === 'store_unavailable') throw unavailable(outcome.message);
    if (outcome.status === 'not_approved' && outcome.reason === 'outcome_unknown') {
      // Core's machine reads the call: still `proposed` means nothing was spent (retryable);
      // otherwise the call may have run, and no attempt may run it again.
      const settled = await settleUnknownOutcome(this.#port, outcome.proposalId ?? proposalId, outcome.message);
      if (settled.kind === 'refused') throw unavailable(settled.refusal.message);
      throw refusal(FAILURE_TYPES.outcomeUnknown, settled.refusal.message, settled);
    }
    const type =
      outcome.status === 'denied'
        ? FAILURE_TYPES.denied
        : outcome.status === 'approval_required' || (outcome.status === 'not_approved' && outcome.reason === 'approval_pending')
          ? FAILURE_TYPES.approvalRequired
          : FAILURE_TYPES.notApproved;
    throw refusal(type, `${outcome.status}${'reason' in outcome ? `: ${outcome.reason}` : ''}`, outcome);
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
