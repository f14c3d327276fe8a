import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gate } from '@countersign/core';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from '@countersign/store-postgres/testing';
import type { PostgresStore } from '@countersign/store-postgres';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientSender, notifyWorkflows } from './notify-workflows.ts';
import { createSystemDatabase, type SystemDatabase } from './testing/system-database.ts';
import { APPROVER, openWorkerGate, TEST_MASTER_HEX, WORKER_AGENT } from './testing/worker-gate.ts';
import { startWorker, toolStarts, type WorkerProcess } from './testing/worker-process.ts';
import { decisionReads, wokenAndReadAgain } from './testing/wait-steps.ts';
import { decisionTopic } from './topic.ts';

// Real processes on the real PostgreSQL: DBOS workers that are SIGKILLed and restarted, the
// gate on one Postgres schema shared by every process, the same master key across restarts.
// This process is the approval service: it decides, and its notifier wakes the workflow.
describePg('DBOS workflows across a SIGKILL (real processes, real PostgreSQL)', () => {
  let system: SystemDatabase;
  let client: DBOSClient;
  let gate: Gate;
  let store: PostgresStore;
  let stopNotifier: () => void;
  const schema = randomSchema();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-dbos-'));
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    system = await createSystemDatabase();
    client = await DBOSClient.create({ systemDatabaseUrl: system.url, systemDatabaseSchemaName: system.schema });
    ({ gate, store } = await openWorkerGate(TEST_PG_URL, schema, TEST_MASTER_HEX));
    stopNotifier = notifyWorkflows(gate.events, clientSender(client));
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    stopNotifier?.();
    await client?.destroy();
    await store?.close();
    await dropSchema(schema);
    await system?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function run(extra: Record<string, string> = {}) {
    const runId = `run-${randomUUID()}`;
    const toolLog = join(dir, `${runId}.log`);
    const start = (env: Record<string, string> = {}) => {
      const worker = startWorker({
        RUN_ID: runId,
        TOOL_LOG: toolLog,
        PG_URL: TEST_PG_URL,
        GATE_SCHEMA: schema,
        MASTER_HEX: TEST_MASTER_HEX,
        DBOS_SYSTEM_URL: system.url,
        DBOS_SYSTEM_SCHEMA: system.schema,
        ...extra,
        ...env,
      });
      workers.push(worker);
      return worker;
    };
    return { runId, start, toolStarts: () => toolStarts(toolLog) };
  }

  type Proposed = { proposalId: string; requestId: string };
  const proposedOf = async (worker: WorkerProcess) => (await worker.waitFor('proposed')).proposed as Proposed;
  const approve = (requestId: string) => gate.approvals.decide(APPROVER, { requestId, decision: 'approve' });
  const port = () => gate.port(WORKER_AGENT);
  const steps = (workflowId: string) => client.listWorkflowSteps(workflowId);

  it('(1) SIGKILL while waiting for approval; restart; the approval arrives; the tool runs exactly once', async () => {
    const r = run();
    const first = r.start({ START: '1' });
    const { requestId, proposalId } = await proposedOf(first);
    await decisionReads(steps, r.runId); // read once, pending: in DBOS.recv now
    await first.kill();
    expect(r.toolStarts()).toEqual([]);

    const second = r.start();
    await proposedOf(second); // replayed from the history: the recovered workflow is waiting again
    // A forged "approved" message wakes the workflow, which re-reads Countersign: still pending, nothing runs.
    await client.send(r.runId, { type: 'countersign_decision', requestId, approved: true }, decisionTopic(requestId));
    await wokenAndReadAgain(steps, r.runId);
    expect(r.toolStarts()).toEqual([]);
    expect(await port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });

    // The decision: the notifier sends; the worker polls only every 60 s and waitFor gives up after 15 s, so a result proves the send woke it.
    const decidedAt = performance.now();
    await approve(requestId);
    const { result } = await second.waitFor('result', 15_000);
    const wakeMs = performance.now() - decidedAt;
    expect(result).toMatchObject({ status: 'succeeded', proposalId, result: { transferred: 2500 }, completion: { ok: true } });
    expect(r.toolStarts()).toEqual([{ pid: second.child.pid, args: { amount: 2500, to: 'alice' } }]);
    expect(await port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    console.info(`dbos: decision to tool result after a SIGKILL and recovery: ${wakeMs.toFixed(0)} ms`);
    await second.exited;
  });

  it('(2) SIGKILL after authorize, inside the tool: no second execution; the call reads "ran, result unknown"', async () => {
    const r = run();
    const first = r.start({ START: '1', HANG: 'in-tool' });
    const { requestId, proposalId } = await proposedOf(first);
    await approve(requestId);
    await first.waitFor('in-tool');
    await first.kill();
    expect(r.toolStarts()).toHaveLength(1);
    expect(await port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });

    // The grant is spent: the token the engine recorded does not authorize the call again.
    const steps = (await client.listWorkflowSteps(r.runId)) ?? [];
    // runCall's token step (the guarded-call machine's) records the token itself.
    const recordedToken = steps.find((s) => s.name === 'countersign.token')?.output as string | undefined;
    expect(recordedToken).toEqual(expect.any(String));
    const again = await port().authorize({ proposalId, token: recordedToken });
    expect(again).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });

    const second = r.start();
    const { result } = await second.waitFor('result');
    expect(result).toMatchObject({ status: 'result_unknown', proposalId, call: { state: 'dispatched', proposalId } });
    expect(r.toolStarts()).toHaveLength(1);
    await second.exited;
  });

  it('(3) a token minted before a SIGKILL verifies after recovery (run key from the workflow id); under another master key it does not', async () => {
    const r = run({ FLOW: 'steps' });
    const first = r.start({ START: '1', HANG: 'after-token' });
    const { requestId, proposalId } = await proposedOf(first);
    await approve(requestId);
    const minted = (await first.waitFor('token')).issued as { ok: true; token: string };
    await first.kill();
    // Not spent: the crash came before authorize.
    expect(await port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });

    const second = r.start();
    const { result } = await second.waitFor('result');
    // The new process authorized with the token replayed from the history, minted by the dead one.
    expect(result).toMatchObject({ ran: { status: 'succeeded', result: { transferred: 2500 } }, token: { token: minted.token } });
    expect(r.toolStarts()).toEqual([{ pid: second.child.pid, args: { amount: 2500, to: 'alice' } }]);
    await second.exited;

    // The same crash, recovered by a worker holding another master key: the token is checked, and refused.
    const other = run({ FLOW: 'steps' });
    const doomed = other.start({ START: '1', HANG: 'after-token' });
    const otherCall = await proposedOf(doomed);
    await approve(otherCall.requestId);
    await doomed.waitFor('token');
    await doomed.kill();
    const wrongKey = other.start({ MASTER_HEX: '6b'.repeat(32) });
    const refused = (await wrongKey.waitFor('result')).result;
    expect(refused).toMatchObject({ authorize: { status: 'not_approved', reason: 'bad_signature' } });
    expect(other.toolStarts()).toEqual([]);
    expect(await port().callStatus(otherCall.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
    await wrongKey.exited;
  });
});
