import { randomUUID } from 'node:crypto';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { lostAuthorizeReply } from '@countersign/core/testing';
import { describePg } from '@countersign/store-postgres/testing';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countersignWorkflow } from './countersign-workflow.ts';
import { notifyWorkflows } from './notify-workflows.ts';
import { launchDbos, shutdownDbos, type SystemDatabase } from './testing/system-database.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 600 }
  - tool: quick_transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 1 }
`;
const FIONA = { id: 'fiona', roles: ['finance'] };

// DBOS launched in this test process (one system database for the file); the gate in memory.
describePg('DBOS workflow flows (in process, real PostgreSQL)', () => {
  let system: SystemDatabase;
  const ran: Array<{ runId: string; args: unknown }> = [];
  /** Runs whose notifications are lost: only the poll fallback can wake them. */
  const lost = new Set<string>();
  const definition = (name: string) => ({ definition: { name, description: name, inputSchema: { type: 'object' } }, execute: () => undefined });
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 9))]),
    tools: { transfer: definition('transfer'), quick_transfer: definition('quick_transfer') },
  });
  const port = gate.port({ id: 'flows' });
  const slow = countersignWorkflow({ port, pollIntervalMs: 60_000 });
  const fast = countersignWorkflow({ port, pollIntervalMs: 1_000 });
  const lostCommitted = countersignWorkflow({ port: lostAuthorizeReply(port, true), pollIntervalMs: 60_000 });
  const lostNothing = countersignWorkflow({ port: lostAuthorizeReply(port, false), pollIntervalMs: 60_000 });

  const pay = DBOS.registerWorkflow(
    async (input: { tool: string; amount: number; poll: 'slow' | 'fast' | 'lost-committed' | 'lost-nothing'; runId?: string }) => {
      const cs = { slow, fast, 'lost-committed': lostCommitted, 'lost-nothing': lostNothing }[input.poll];
      const [proposed] = await cs.propose({
        runId: input.runId,
        sessionId: 's1',
        principal: 'user:42',
        toolCalls: [{ id: 'call-1', name: input.tool, arguments: { amount: input.amount, to: 'alice' } }],
      });
      if (proposed === undefined) throw new Error('nothing proposed');
      return cs.runCall(proposed, async (args) => {
        ran.push({ runId: DBOS.workflowID as string, args });
        return { ok: true };
      });
    },
    { name: 'countersign-flows-pay' },
  );

  beforeAll(async () => {
    system = await launchDbos('countersign-dbos-flows');
    notifyWorkflows(gate.events, async (id, message, topic, key) => {
      if (!lost.has(id)) await DBOS.send(id, message, topic, key);
    });
  });
  afterAll(async () => {
    await shutdownDbos(system);
  });

  /** Starts the workflow and returns its handle once its approval request exists. */
  async function start(input: Parameters<typeof pay>[0], options: { lose?: boolean } = {}) {
    const runId = `run-${randomUUID()}`;
    if (options.lose === true) lost.add(runId);
    const requested = new Promise<string>((resolve) => {
      const stop = gate.events.subscribe((e) => {
        if (e.type !== 'approval_requested' || e.runId !== runId) return;
        stop();
        resolve(e.requestId);
      });
    });
    const handle = await DBOS.startWorkflow(pay, { workflowID: runId })(input);
    return { runId, handle, requested };
  }

  it('a denial ends the workflow denied; nothing runs', async () => {
    const { runId, handle, requested } = await start({ tool: 'transfer', amount: 2500, poll: 'slow' });
    await gate.approvals.decide(FIONA, { requestId: await requested, decision: 'deny' });
    expect(await handle.getResult()).toMatchObject({ status: 'denied', reason: 'approval_denied' });
    expect(ran.filter((r) => r.runId === runId)).toEqual([]);
  });

  it('approve-with-edits: the workflow follows the edit and runs the approver’s arguments, once', async () => {
    const { runId, handle, requested } = await start({ tool: 'transfer', amount: 2500, poll: 'slow' });
    await gate.approvals.decide(FIONA, { requestId: await requested, decision: 'approve', editedArguments: { amount: 250, to: 'alice' } });
    expect(await handle.getResult()).toMatchObject({ status: 'succeeded' });
    expect(ran.filter((r) => r.runId === runId)).toEqual([{ runId, args: { amount: 250, to: 'alice' } }]);
  });

  it('no decision: the wait ends at the request’s expiry (fixed when it was made), not at the poll interval', async () => {
    // The slow poll (60 s) comes after the test timeout: only the expiry (1 s) can end the wait in time.
    const { runId, handle } = await start({ tool: 'quick_transfer', amount: 5, poll: 'slow' });
    expect(await handle.getResult()).toMatchObject({ status: 'not_approved', reason: 'expired' });
    expect(ran.filter((r) => r.runId === runId)).toEqual([]);
  });

  it('a lost notification: the poll fallback re-reads Countersign and the approved call runs once', async () => {
    const { runId, handle, requested } = await start({ tool: 'transfer', amount: 2500, poll: 'fast' }, { lose: true });
    await gate.approvals.decide(FIONA, { requestId: await requested, decision: 'approve' });
    expect(await handle.getResult()).toMatchObject({ status: 'succeeded' });
    expect(ran.filter((r) => r.runId === runId)).toHaveLength(1);
  });

  it('a response naming another run is refused: the run id is the workflow id', async () => {
    const { handle } = await start({ tool: 'transfer', amount: 2500, poll: 'slow', runId: 'run-somebody-else' });
    await expect(handle.getResult()).rejects.toThrow(/run id must be the workflow id/);
  });

  it('authorize answered outcome_unknown after the consume committed: result_unknown (the call reads dispatched), never an ordinary refusal, nothing runs', async () => {
    const { runId, handle, requested } = await start({ tool: 'transfer', amount: 2500, poll: 'lost-committed' });
    await gate.approvals.decide(FIONA, { requestId: await requested, decision: 'approve' });
    expect(await handle.getResult()).toMatchObject({ status: 'result_unknown', call: { state: 'dispatched' } });
    expect(ran.filter((r) => r.runId === runId)).toEqual([]);
  });

  it('authorize answered outcome_unknown but nothing was consumed (the call reads proposed): a store_unavailable refusal, nothing runs', async () => {
    const { runId, handle, requested } = await start({ tool: 'transfer', amount: 2500, poll: 'lost-nothing' });
    await gate.approvals.decide(FIONA, { requestId: await requested, decision: 'approve' });
    expect(await handle.getResult()).toMatchObject({ status: 'not_approved', reason: 'store_unavailable' });
    expect(ran.filter((r) => r.runId === runId)).toEqual([]);
  });
});
