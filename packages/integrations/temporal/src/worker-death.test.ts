import { Context } from '@temporalio/activity';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { failureOf, temporalFixture, WORKFLOW_ID } from './activities.test-helper.ts';
import { bundleForTest } from './testing/bundle.ts';
import { workerDiedHistory } from './testing/history.ts';
import { countersignActivityInterceptors } from './tool-interceptor.ts';
import { FAILURE_TYPES } from './workflow/contract.ts';
import { countersignFailure } from './workflow/countersign-workflow.ts';

const BIG = { amount: 500, to: 'alice' };

/**
 * The worker dies while the tool runs, without a Temporal server (server.test.ts runs the same
 * story against one when TEMPORAL_ADDRESS is set). The activity's two attempts run in the SDK's
 * MockActivityEnvironment against a real gate; the workflow's side is the retried attempt's
 * failure replayed in Temporal's real workflow sandbox (`Worker.runReplayHistory`).
 */
describe('the worker dies while the tool runs (no Temporal server)', () => {
  let code: string;
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    code = (await bundleForTest()).code;
  }, 120_000);

  /** Attempt 1 starts the approved transfer and its worker dies; Temporal's retry runs attempt 2. Returns attempt 2's failure. */
  async function dieThenRetry() {
    const f = temporalFixture();
    const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
    if (outcome?.status !== 'approval_required') throw new Error(`expected approval_required, got ${outcome?.status}`);
    await f.approve(outcome.requestId);
    const envelope = f.envelope(outcome, BIG);

    // Attempt 1: authorized (the approval is spent), the tool starts and heartbeats, then the
    // worker shuts down: the attempt is cancelled, and the tool, like a killed process, never answers.
    const heartbeats: unknown[] = [];
    let toolStarted!: () => void;
    const running = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const dying = async (args: unknown) => {
      f.ran.push({ tool: 'transfer', args });
      Context.current().heartbeat('transfer sent to the bank');
      toolStarted();
      return new Promise(() => {});
    };
    const firstAttempt = new MockActivityEnvironment(
      { activityType: 'transfer', attempt: 1, workflowExecution: { workflowId: WORKFLOW_ID, runId: 'temporal-run-1' } },
      { interceptors: [countersignActivityInterceptors(f.port)], logger: new DefaultLogger('ERROR') },
    );
    firstAttempt.on('heartbeat', (details: unknown) => heartbeats.push(details));
    void firstAttempt.run(dying as (...a: unknown[]) => Promise<unknown>, envelope);
    await running;
    firstAttempt.cancel();

    // Attempt 2, on another worker, after the start-to-close timeout.
    const retried = await failureOf(f.runActivity('transfer', f.tools.transfer, [envelope], WORKFLOW_ID, 2));
    return { f, outcome, heartbeats, retried };
  }

  it('the retried attempt never runs the tool again: refused already-consumed (non-retryable), the call reads dispatched, "ran, result unknown"', async () => {
    const { f, outcome, heartbeats, retried } = await dieThenRetry();
    expect(heartbeats).toEqual(['transfer sent to the bank']);
    expect(retried.type).toBe(FAILURE_TYPES.alreadyConsumed);
    expect(retried.message).toContain('ran, result unknown');
    expect(retried.details[0]).toMatchObject({ ok: true, call: { proposalId: outcome.proposalId, state: 'dispatched' } });
    expect(f.ran).toEqual([{ tool: 'transfer', args: BIG }]);
    expect(await f.port.callStatus(outcome.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
  });

  it("the workflow ends on that attempt's failure, as a Countersign refusal (already consumed), and schedules the tool no more", async () => {
    const { retried } = await dieThenRetry();
    // The replayer compares commands, not the result: after the failure the workflow's only
    // command is to complete (no second tool activity, no new wait).
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, workerDiedHistory(retried), WORKFLOW_ID)).resolves.toBeUndefined();
    // What it completes with: callTool reports a failure countersignFailure recognizes as `refused` with its type.
    const delivered = new ActivityFailure('activity failed', 'transfer', '2', RetryState.NON_RETRYABLE_FAILURE, 'worker-2', ApplicationFailure.create({ ...retried, nonRetryable: true }));
    expect(countersignFailure(delivered)).toEqual({ type: FAILURE_TYPES.alreadyConsumed, message: retried.message });
  }, 60_000);

  it('negative control: a history in which the workflow scheduled the tool again after that failure does not replay', async () => {
    const { retried } = await dieThenRetry();
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, workerDiedHistory(retried, { toolScheduledAgain: true }), WORKFLOW_ID)).rejects.toThrow(
      /[Nn]ondeterminism/,
    );
  }, 60_000);
});
