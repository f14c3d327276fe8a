import { randomUUID } from 'node:crypto';
import { InProcessGatePort } from '@countersign/core/gate';
import { FINANCE, makeGateFixture } from '@countersign/core/testing';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountersignActivities } from './activities.ts';
import { clientSignalSender, notifyTemporalOnDecision } from './notifier.ts';
import type { ApprovalWorkflowInput } from './testing/approval-workflow.ts';
import { bundleForTest } from './testing/bundle.ts';
import { countersignActivityInterceptors } from './tool-interceptor.ts';
import { FAILURE_TYPES, type GuardedCallResult } from './workflow/contract.ts';

/**
 * Full-server tests: a real worker and client against the Temporal server at
 * TEMPORAL_ADDRESS (e.g. `temporal server start-dev`, then TEMPORAL_ADDRESS=localhost:7233).
 * No server can be installed where this suite was written, so they are skipped without it.
 */
const ADDRESS = process.env.TEMPORAL_ADDRESS ?? '';
const NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';
const BIG = { amount: 500, to: 'alice' };

describe.skipIf(ADDRESS === '')('full Temporal server (skipped: set TEMPORAL_ADDRESS to run; no server in CI)', () => {
  let client: Client;
  let connection: NativeConnection;
  let code: string;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    client = new Client({ connection: await Connection.connect({ address: ADDRESS }), namespace: NAMESPACE });
    connection = await NativeConnection.connect({ address: ADDRESS });
    code = (await bundleForTest()).code;
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
    await client?.connection.close();
  });

  /** A worker on its own task queue with a real gate (memory store), activities, interceptor and notifier. */
  async function setup(tool: (args: unknown) => Promise<unknown>, options: { activityTimeoutMs?: number } = {}) {
    const fixture = makeGateFixture();
    const port = new InProcessGatePort(fixture.gate);
    const taskQueue = `countersign-${randomUUID()}`;
    const stopNotifier = notifyTemporalOnDecision(fixture.gate.events, clientSignalSender(client));
    const newWorker = () =>
      Worker.create({
        connection,
        namespace: NAMESPACE,
        taskQueue,
        workflowBundle: { code },
        activities: { ...createCountersignActivities(port), transfer: tool },
        interceptors: { activity: [countersignActivityInterceptors(port)] },
        shutdownGraceTime: '1 second',
        shutdownForceTime: '3 seconds',
      });
    const start = (workflowId: string) =>
      client.workflow.start('approvalWorkflow', {
        taskQueue,
        workflowId,
        args: [
          {
            sessionId: 's-1',
            principal: 'user:42',
            call: { id: 'call-1', name: 'transfer', arguments: BIG },
            activityTimeoutMs: options.activityTimeoutMs,
          } satisfies ApprovalWorkflowInput,
        ],
      });
    const pendingRequest = async (workflowId: string) => {
      for (let i = 0; i < 100; i++) {
        const found = await fixture.ledger.findProposalByCall(workflowId, 'call-1');
        if (found !== undefined) {
          const status = await port.callStatus(found.proposalId);
          if (status.ok && status.call.request) return { proposalId: found.proposalId, requestId: status.call.request.requestId };
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the workflow never proposed its call');
    };
    return { fixture, port, newWorker, start, pendingRequest, stopNotifier };
  }

  it('waits for the approval signal, then runs the tool once with the ledger arguments', async () => {
    const ran: unknown[] = [];
    const s = await setup(async (args) => {
      ran.push(args);
      return { transferred: 500 };
    });
    const worker = await s.newWorker();
    const workflowId = `approve-${randomUUID()}`;
    const result = await worker.runUntil(async () => {
      const handle = await s.start(workflowId);
      const { requestId } = await s.pendingRequest(workflowId);
      expect(ran).toEqual([]);
      await s.fixture.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
      return (await handle.result()) as GuardedCallResult;
    });
    expect(result).toMatchObject({ status: 'executed', result: { transferred: 500 } });
    expect(ran).toEqual([BIG]);
    // The recorded history replays against the same bundle: the helpers are deterministic.
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { code } }, history, workflowId);
    s.stopNotifier();
  }, 120_000);

  it('a denial ends the workflow with a refusal; the tool never runs', async () => {
    const ran: unknown[] = [];
    const s = await setup(async (args) => ran.push(args));
    const worker = await s.newWorker();
    const workflowId = `deny-${randomUUID()}`;
    const result = await worker.runUntil(async () => {
      const handle = await s.start(workflowId);
      const { requestId } = await s.pendingRequest(workflowId);
      await s.fixture.gate.approvals.decide(FINANCE, { requestId, decision: 'deny' });
      return (await handle.result()) as GuardedCallResult;
    });
    expect(result).toMatchObject({ status: 'refused', failureType: FAILURE_TYPES.denied });
    expect(ran).toEqual([]);
    s.stopNotifier();
  }, 120_000);

  it('the worker dies while the tool runs; after the activity retry the call is "ran, result unknown", never run twice', async () => {
    let runs = 0;
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    // Never returns (and ignores cancellation), like a process killed mid-call.
    const s = await setup(async () => {
      runs++;
      started();
      return new Promise(() => {});
    }, { activityTimeoutMs: 5_000 });
    const workflowId = `crash-${randomUUID()}`;
    const first = await s.newWorker();
    const firstRun = first.run();
    const handle = await s.start(workflowId);
    const { requestId, proposalId } = await s.pendingRequest(workflowId);
    await s.fixture.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    await toolStarted;
    first.shutdown();
    await firstRun.catch(() => {});
    // A new worker picks the workflow up; the tool activity times out (start-to-close) and is retried there.
    const second = await s.newWorker();
    const result = (await second.runUntil(handle.result())) as GuardedCallResult;
    expect(result).toMatchObject({ status: 'refused', failureType: FAILURE_TYPES.alreadyConsumed });
    expect(runs).toBe(1);
    expect(await s.port.callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    s.stopNotifier();
  }, 180_000);
});
