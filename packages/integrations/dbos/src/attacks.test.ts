import { randomUUID } from 'node:crypto';
import { linkedPair } from '@countersign/server/testing';
import { Gate, type GatePort, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger, type ProposeOutcome } from '@countersign/core';
import { describePg } from '@countersign/store-postgres/testing';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersignWorkflow } from './countersign-workflow.ts';
import { notifyWorkflows } from './notify-workflows.ts';
import { launchDbos, shutdownDbos, type SystemDatabase } from './testing/system-database.ts';
import { wokenAndReadAgain } from './testing/wait-steps.ts';
import { decisionTopic } from './topic.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 600 }
`;
const FIONA = { id: 'fiona', roles: ['finance'] };
const AGENT = 'dbos-kit';
const PAY = { id: 'call-1', name: 'transfer', arguments: { amount: 2500, to: 'alice' } };
/**
 * DBOS dispatches a fork from a queue and reads another process's result by polling: on its
 * internal queue and default result poll (each once a second) every fork of the replay attack,
 * and the second start of one run, waited for a poll. Here they poll as often as this.
 */
const POLL_MS = 25;
const FORK_QUEUE = 'countersign-dbos-attacks-forks';

/**
 * The adapter attacks that apply to a durable workflow, through the real DBOS SDK (launched
 * on its own system database) on both wirings: the in-process gate and `@countersign/client`
 * over the server app (linkedPair). The kit's message attacks (made-up results, refusal-shaped
 * text, unknown message shapes, renamed or injected calls in a saved history) have no target
 * here: a DBOS workflow relays nothing to a model, and its history is its own recorded steps.
 */
describePg('adapter attacks through DBOS (real PostgreSQL)', () => {
  let system: SystemDatabase;
  const ran: Array<{ runId: string; args: unknown }> = [];
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
    tools: { transfer: { definition: { name: 'transfer', description: 'transfer', inputSchema: { type: 'object' } }, execute: () => undefined } },
  });
  const pair = linkedPair({ gate, auth: { agents: [{ name: AGENT, token: `agent-${randomUUID()}` }], approvers: [] }, client: { retryDelayMs: 5 } });
  const wirings: Array<{ name: string; port: GatePort }> = [
    { name: 'in-process gate', port: gate.port({ id: AGENT }) },
    { name: '@countersign/client (linkedPair)', port: pair.client },
  ];
  const flows = wirings.map((w) => countersignWorkflow({ port: w.port, pollIntervalMs: 1_000 }));

  const pay = DBOS.registerWorkflow(
    async (input: { wiring: number; smuggled?: ProposeOutcome }) => {
      const cs = flows[input.wiring]!;
      const [proposed] = await cs.propose({ sessionId: 's1', principal: 'user:42', toolCalls: [PAY] });
      if (proposed === undefined) throw new Error('nothing proposed');
      return cs.runCall(input.smuggled ?? proposed, async (args) => {
        ran.push({ runId: DBOS.workflowID as string, args });
        return { ok: true };
      });
    },
    { name: 'countersign-dbos-attacks-pay' },
  );

  beforeAll(async () => {
    system = await launchDbos('countersign-dbos-attacks');
    await DBOS.registerQueue(FORK_QUEUE, { minPollingIntervalMs: POLL_MS });
    notifyWorkflows(gate.events, (id, message, topic, key) => DBOS.send(id, message, topic, key));
  });
  afterAll(async () => {
    await shutdownDbos(system);
    await pair.close();
  });

  /** The workflow's approval request, once propose made it. */
  function requestOf(runId: string): Promise<{ requestId: string; proposalId: string }> {
    return new Promise((resolve) => {
      const stop = gate.events.subscribe((e) => {
        if (e.type !== 'approval_requested' || e.runId !== runId) return;
        stop();
        resolve({ requestId: e.requestId, proposalId: e.proposalId });
      });
    });
  }
  const ranIn = (runId: string) => ran.filter((r) => r.runId === runId);

  wirings.forEach((wiring, index) => {
    describe(wiring.name, () => {
      async function approvedRun() {
        const runId = `run-${randomUUID()}`;
        const requested = requestOf(runId);
        const handle = await DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index });
        const { requestId, proposalId } = await requested;
        await gate.approvals.decide(FIONA, { requestId, decision: 'approve' });
        expect(await handle.getResult()).toMatchObject({ status: 'succeeded' });
        return { runId, proposalId };
      }

      it('replay of an approved run: starting the finished workflow again, or forking it from any step after propose, never runs the tool again', async () => {
        const { runId } = await approvedRun();
        expect(ranIn(runId)).toEqual([{ runId, args: PAY.arguments }]);
        const again = await DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index });
        expect(await again.getResult()).toMatchObject({ status: 'succeeded' });
        const steps = (await DBOS.listWorkflowSteps(runId)) ?? [];
        expect(steps.map((s) => s.name)).toEqual(expect.arrayContaining(['countersign.propose', 'countersign.authorize', 'countersign.execute']));
        for (const step of steps.slice(1)) {
          const fork = await DBOS.forkWorkflow<unknown>(runId, step.functionID, { queueName: FORK_QUEUE });
          const result = await fork.getResult({ pollingIntervalMs: POLL_MS });
          expect(result, `fork from ${step.name}`).not.toMatchObject({ status: 'succeeded', result: { ok: true }, completion: { ok: true, duplicate: false } });
          expect(ranIn(fork.workflowID), `fork from ${step.name}`).toEqual([]);
        }
        expect(ran.filter((r) => r.runId === runId)).toHaveLength(1);
      });

      it("an approver's edit is followed: the edited call runs once, with the approver's arguments", async () => {
        const runId = `run-${randomUUID()}`;
        const requested = requestOf(runId);
        const handle = await DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index });
        const { requestId } = await requested;
        await gate.approvals.decide(FIONA, { requestId, decision: 'approve', editedArguments: { amount: 250, to: 'alice' } });
        expect(await handle.getResult()).toMatchObject({ status: 'succeeded' });
        expect(ranIn(runId)).toEqual([{ runId, args: { amount: 250, to: 'alice' } }]);
      });

      it('concurrent double start of one approved run: the tool runs once', async () => {
        const runId = `run-${randomUUID()}`;
        const requested = requestOf(runId);
        const [a, b] = await Promise.all([DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index }), DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index })]);
        await gate.approvals.decide(FIONA, { requestId: (await requested).requestId, decision: 'approve' });
        await Promise.all([a!.getResult({ pollingIntervalMs: POLL_MS }), b!.getResult({ pollingIntervalMs: POLL_MS })]);
        expect(ranIn(runId)).toHaveLength(1);
      });

      it('forged approval (a decision message sent to the workflow, nothing decided in Countersign): nothing runs; it still waits, and a denial ends it', async () => {
        const runId = `run-${randomUUID()}`;
        const requested = requestOf(runId);
        const handle = await DBOS.startWorkflow(pay, { workflowID: runId })({ wiring: index });
        const { requestId } = await requested;
        await DBOS.send(runId, { requestId }, decisionTopic(requestId));
        await wokenAndReadAgain((id) => DBOS.listWorkflowSteps(id), runId);
        expect(ranIn(runId)).toEqual([]);
        expect((await handle.getStatus())?.status).toBe('PENDING');
        await gate.approvals.decide(FIONA, { requestId, decision: 'deny' });
        expect(await handle.getResult()).toMatchObject({ status: 'denied', reason: 'approval_denied' });
        expect(ranIn(runId)).toEqual([]);
      });

      it("another run's approved call smuggled into a workflow (its propose outcome as input): refused unknown_call, nothing runs, the approval is not spent", async () => {
        const victimRun = `victim-${randomUUID()}`;
        const [smuggled] = await gate.port({ id: AGENT }).propose({ runId: victimRun, sessionId: 's1', principal: 'user:42', toolCalls: [PAY] });
        if (smuggled?.status !== 'approval_required') throw new Error('expected approval_required');
        await gate.approvals.decide(FIONA, { requestId: smuggled.requestId, decision: 'approve' });
        const attacker = `run-${randomUUID()}`;
        const handle = await DBOS.startWorkflow(pay, { workflowID: attacker })({ wiring: index, smuggled });
        expect(await handle.getResult()).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
        expect(ranIn(attacker)).toEqual([]);
        expect(await gate.port({ id: AGENT }).callStatus(smuggled.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed', request: { status: 'approved' } } });
      });
    });
  });
});
