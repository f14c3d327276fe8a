import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { verifyChain } from '../../audit/verify-chain.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { loadPolicy } from '../../policy/load.ts';
import type { Fault } from '../../testing/lifecycle-model/actions.ts';
import { FaultLedger } from '../../testing/lifecycle-model/fault-ledger.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';
import type { GateEvent } from '../../events/types.ts';

/** A gate on a memory store behind the fault ledger (see lost-propose-complete-reply.test.ts). */
function faultyGate() {
  const audit = new MemoryAuditLog();
  const real = new MemoryLedger({ audit });
  const faults = new FaultLedger(real);
  const f = makeGateFixture({ ledger: faults.store, audit });
  const state = { target: undefined as string | undefined, kind: 'lost_reply' as Fault['kind'], readsFail: false, faulted: false };
  faults.beforeCall = async (method) => {
    if (state.faulted && state.readsFail) throw new Error('connection terminated');
    if (method !== state.target) return;
    state.target = undefined;
    state.faulted = true;
    faults.arm({ nth: 0, kind: state.kind });
  };
  const failNext = (method: string, kind: Fault['kind'], readsFail = false) => Object.assign(state, { target: method, kind, readsFail, faulted: false });
  const healed = () => Object.assign(state, { readsFail: false, faulted: false });
  return { f, real, audit, failNext, healed };
}

const readFile = { toolName: 'read_file', arguments: { path: '/notes.txt' }, authorizeAllowed: true };

describe('propose with authorizeAllowed (propose-and-authorize in one write)', () => {
  it('an allowed call: one ledger write leaves it dispatched with its dispatch record, the grant completes, the chain verifies', async () => {
    const f = makeGateFixture();
    const events: GateEvent[] = [];
    f.gate.events.subscribe((e) => {
      events.push(e);
    });
    const outcome = await f.gate.propose(f.call(readFile));
    if (outcome.status !== 'allowed' || outcome.grant === undefined) throw new Error(JSON.stringify(outcome));
    expect(outcome.grant).toMatchObject({ v: 1, proposalId: outcome.proposalId, authorizedAt: f.clock(), agent: 'in-process' });
    expect(await f.ledger.getProposal(outcome.proposalId)).toMatchObject({ state: 'dispatched', dispatchedAt: f.clock() });
    expect((await f.audit.read()).map((r) => r.type)).toEqual(['proposal', 'dispatch']);
    expect(events.map((e) => e.type)).toEqual(['proposed', 'authorized']);
    expect(await f.gate.callStatus(outcome.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    expect(await f.gate.complete(outcome.grant, { status: 'succeeded', result: 'x' })).toMatchObject({ ok: true, duplicate: false });
    expect(await f.gate.authorize({ proposalId: outcome.proposalId })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect((await verifyChain(await f.audit.read())).ok).toBe(true);
  });

  it('never grants what authorize would refuse: approve, deny, a destructive tool, a provider-run call, an unregistered tool', async () => {
    const destructive = makeGateFixture({
      tools: { wipe: { execute: () => 1, definition: { name: 'wipe', description: 'wipe', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } } } },
      policy: loadPolicy('version: 1\nrules:\n  - { id: any, tool: "*", verdict: allow }\n', 'yaml'),
    });
    const f = makeGateFixture({ policy: loadPolicy('version: 1\nrules:\n  - { id: reads, tools: [read_file, ghost], verdict: allow }\n  - { id: t, tool: transfer, verdict: approve, approval: { approvers: { roles: [finance] } } }\n  - { id: d, tool: delete_repo, verdict: deny }\n', 'yaml') });
    const outcomes = [
      await f.gate.propose(f.call({ authorizeAllowed: true })),
      await f.gate.propose(f.call({ toolName: 'delete_repo', arguments: {}, authorizeAllowed: true })),
      await f.gate.propose(f.call({ ...readFile, executedBy: 'provider' })),
      await f.gate.propose(f.call({ toolName: 'ghost', arguments: {}, authorizeAllowed: true })),
      await destructive.gate.propose(destructive.call({ toolName: 'wipe', arguments: {}, authorizeAllowed: true })),
    ];
    expect(outcomes.map((o) => o.status)).toEqual(['approval_required', 'denied', 'allowed', 'allowed', 'approval_required']);
    for (const o of outcomes) expect('grant' in o).toBe(false);
    expect((await f.audit.read()).some((r) => r.type === 'dispatch')).toBe(false);
  });

  it('a model response: only the allowed calls come back granted, each as its own call', async () => {
    const f = makeGateFixture();
    const outcomes = await f.gate.proposeResponse({
      runId: 'run-r',
      sessionId: 'session-1',
      principal: 'user:42',
      authorizeAllowed: true,
      toolCalls: [
        { id: 'a', name: 'read_file', arguments: { path: '/a' } },
        { id: 'b', name: 'transfer', arguments: { amount: 500, to: 'alice' } },
        { id: 'c', name: 'get_balance', arguments: {} },
      ],
    });
    expect(outcomes.map((o) => [o.status, o.status === 'allowed' ? o.grant?.callId : undefined])).toEqual([
      ['allowed', 'a'],
      ['approval_required', undefined],
      ['allowed', 'c'],
    ]);
  });

  it('a write whose COMMIT reply is lost is settled as recorded: its grant is handed out once, a retry gets none', async () => {
    const { f, real, failNext } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal', 'lost_reply');
    const outcome = await f.gate.propose(call);
    const stored = await real.findProposalByCall(call.runId, call.callId);
    expect(stored?.state).toBe('dispatched');
    expect(outcome).toMatchObject({ status: 'allowed', proposalId: stored!.proposalId, grant: { proposalId: stored!.proposalId } });
    const retried = await f.gate.propose(call);
    expect(retried).toMatchObject({ status: 'allowed', proposalId: stored!.proposalId });
    expect('grant' in retried).toBe(false);
  });

  it('a store outage before the write: store_unavailable, nothing recorded or consumed; the retry is granted', async () => {
    const { f, real, audit, failNext, healed } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal', 'before');
    expect(await f.gate.propose(call)).toMatchObject({ status: 'rejected', reason: 'store_unavailable' });
    expect(await real.findProposalByCall(call.runId, call.callId)).toBeUndefined();
    expect((await audit.read()).some((r) => r.type === 'dispatch')).toBe(false);
    healed();
    expect(await f.gate.propose(call)).toMatchObject({ status: 'allowed', grant: { callId: call.callId } });
  });

  it('a lost reply the store cannot read back: outcome_unknown and no grant; afterwards the call reads spent, never granted twice', async () => {
    const { f, real, failNext, healed } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal', 'lost_reply', true);
    const outcome = await f.gate.propose(call);
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'outcome_unknown' });
    healed();
    const stored = await real.findProposalByCall(call.runId, call.callId);
    expect(stored?.state).toBe('dispatched');
    const again = await f.gate.propose(call);
    expect(again).toMatchObject({ status: 'allowed', proposalId: stored!.proposalId });
    expect('grant' in again).toBe(false);
    expect(await f.gate.authorize({ proposalId: stored!.proposalId })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });
});
