import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { FaultLedger } from '../testing/lifecycle-model/fault-ledger.ts';
import type { Fault } from '../testing/lifecycle-model/actions.ts';
import { FIXTURE_POLICY_YAML, makeGateFixture } from '../testing/gate-fixture.ts';
import { loadPolicy } from '../policy/load.ts';

/**
 * A gate on a memory store behind the lifecycle model's fault ledger. `failNext(method,
 * kind)` fails the next call of that store method: `lost_reply` commits it and then
 * throws, as when the reply to COMMIT is lost; `before` throws without writing. With
 * `readsFail`, every store call after the fault throws too (the store is gone).
 */
function faultyGate() {
  const audit = new MemoryAuditLog();
  const real = new MemoryLedger({ audit });
  const faults = new FaultLedger(real);
  const f = makeGateFixture({ ledger: faults.store, audit });
  const state = { target: undefined as string | undefined, kind: 'lost_reply' as Fault['kind'], readsFail: false, faulted: false, skip: 0 };
  faults.beforeCall = async (method) => {
    if (state.faulted && state.readsFail) throw new Error('connection terminated');
    if (method !== state.target || state.skip-- > 0) return;
    state.target = undefined;
    state.faulted = true;
    faults.arm({ nth: 0, kind: state.kind });
  };
  /** Fails the call of `method` after `skip` others. */
  const failNext = (method: string, kind: Fault['kind'] = 'lost_reply', readsFail = false, skip = 0) => Object.assign(state, { target: method, kind, readsFail, faulted: false, skip });
  const healed = () => Object.assign(state, { readsFail: false, faulted: false });
  return { f, real, audit, faults, failNext, healed };
}

const readFile = { toolName: 'read_file', arguments: { path: '/notes.txt' } };

describe('a proposal whose COMMIT reply is lost is answered as recorded (invariant 6, was store_unavailable)', () => {
  it('an allowed call: answered allowed with the stored proposal; proposing it again answers the same call', async () => {
    const { f, real, faults, failNext } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal');
    const outcome = await f.gate.propose(call);
    expect(faults.injected).toEqual([{ method: 'recordProposal', kind: 'lost_reply' }]);
    const stored = await real.findProposalByCall(call.runId, call.callId);
    expect(stored).toBeDefined();
    expect(outcome).toEqual({ status: 'allowed', proposalId: stored!.proposalId, callId: call.callId, argsDigest: stored!.argsDigest });
    // Idempotent: the agent's retry gets the same call, and nothing new is recorded.
    expect(await f.gate.propose(call)).toEqual(outcome);
  });

  it('a call that needs approval: answered approval_required with the request opened in the same write', async () => {
    const { f, real, failNext } = faultyGate();
    const call = f.call();
    failNext('recordProposal');
    const outcome = await f.gate.propose(call);
    const stored = await real.findProposalByCall(call.runId, call.callId);
    const request = await real.findApprovalRequestByProposal(stored!.proposalId);
    expect(request?.status).toBe('pending');
    expect(outcome).toMatchObject({ status: 'approval_required', proposalId: stored!.proposalId, requestId: request!.requestId, expiresAt: request!.expiresAt });
    expect(await f.gate.propose(call)).toMatchObject({ status: 'approval_required', requestId: request!.requestId });
  });

  it('a re-proposal whose (no-op) write loses its reply answers the call already recorded, not a new one', async () => {
    const { f, failNext } = faultyGate();
    const call = f.call();
    const first = await f.gate.propose(call);
    failNext('recordProposal');
    expect(await f.gate.propose(call)).toEqual(first);
  });

  it('an approval request opened for a call recorded without one (policy changed since) whose reply is lost: answered with the stored request', async () => {
    const { f, real, faults, failNext, audit } = faultyGate();
    const call = f.call({ ...readFile, callId: 'read-1' });
    expect(await f.gate.propose(call)).toMatchObject({ status: 'allowed' });
    // Policy now asks a person for reads: proposing the recorded call again opens its request.
    const stricter = loadPolicy(FIXTURE_POLICY_YAML.replace('verdict: allow', 'verdict: approve\n    approval: { approvers: { roles: [finance] } }'), 'yaml');
    const g = makeGateFixture({ ledger: faults.store, audit, policy: stricter });
    failNext('createApprovalRequest');
    const outcome = await g.gate.propose(call);
    expect(faults.injected).toEqual([{ method: 'createApprovalRequest', kind: 'lost_reply' }]);
    const stored = await real.findProposalByCall(call.runId, call.callId);
    const request = await real.findApprovalRequestByProposal(stored!.proposalId);
    expect(outcome).toMatchObject({ status: 'approval_required', proposalId: stored!.proposalId, requestId: request!.requestId });
  });

  it('a model response: the call whose write lost its reply is answered as recorded, like the others', async () => {
    const { f, real, faults, failNext } = faultyGate();
    // The second call's write (the transfer, which opens a request) loses its reply.
    failNext('recordProposal', 'lost_reply', false, 1);
    const outcomes = await f.gate.proposeResponse({
      runId: 'run-1',
      sessionId: 'session-1',
      principal: 'user:42',
      toolCalls: [
        { id: 'a', name: 'read_file', arguments: { path: '/a' } },
        { id: 'b', name: 'transfer', arguments: { amount: 500, to: 'alice' } },
      ],
    });
    expect(faults.injected).toEqual([{ method: 'recordProposal', kind: 'lost_reply' }]);
    expect(outcomes.map((o) => o.status)).toEqual(['allowed', 'approval_required']);
    const b = await real.findProposalByCall('run-1', 'b');
    expect(outcomes[1]).toMatchObject({ proposalId: b!.proposalId, requestId: (await real.findApprovalRequestByProposal(b!.proposalId))!.requestId });
  });

  it('a write that did not commit is still store_unavailable, and nothing is recorded', async () => {
    const { f, real, failNext } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal', 'before');
    expect(await f.gate.propose(call)).toMatchObject({ status: 'rejected', reason: 'store_unavailable' });
    expect(await real.findProposalByCall(call.runId, call.callId)).toBeUndefined();
  });

  it('when the store cannot be read back either: outcome_unknown, never a failure for a call that is recorded', async () => {
    const { f, real, failNext, healed } = faultyGate();
    const call = f.call(readFile);
    failNext('recordProposal', 'lost_reply', true);
    expect(await f.gate.propose(call)).toMatchObject({ status: 'rejected', reason: 'outcome_unknown' });
    expect(await real.findProposalByCall(call.runId, call.callId)).toBeDefined();
    healed();
    expect(await f.gate.propose(call)).toMatchObject({ status: 'allowed' });
  });
});

describe('a result whose COMMIT reply is lost is answered as recorded (invariant 6, was store_unavailable)', () => {
  async function authorized(g: ReturnType<typeof faultyGate>) {
    const call = g.f.call(readFile);
    await g.f.gate.propose(call);
    const outcome = await g.f.gate.authorize(g.f.dispatchFor(call));
    if (outcome.status !== 'authorized') throw new Error(outcome.status);
    return outcome.grant;
  }

  it('complete: answered ok with the stored digest; completing again answers duplicate; the chain holds one result record', async () => {
    const g = faultyGate();
    const grant = await authorized(g);
    g.failNext('recordResult');
    const outcome = await g.f.gate.complete(grant, { status: 'succeeded', result: { content: 'hello' } });
    expect(g.faults.injected).toEqual([{ method: 'recordResult', kind: 'lost_reply' }]);
    const stored = await g.real.getProposal(grant.proposalId);
    expect(stored?.result?.status).toBe('succeeded');
    expect(outcome).toEqual({ ok: true, proposalId: grant.proposalId, resultDigest: stored!.result!.resultDigest, duplicate: false });
    expect(await g.f.gate.complete(grant, { status: 'succeeded', result: { content: 'hello' } })).toMatchObject({ ok: true, duplicate: true });
    const records = await g.audit.read();
    expect(records.filter((r) => r.type === 'result' && r.proposalId === grant.proposalId)).toHaveLength(1);
    expect((await verifyChain(records)).ok).toBe(true);
  });

  it('complete with a different result than the one stored (the write was not this one): store_unavailable, then result_conflict', async () => {
    const g = faultyGate();
    const grant = await authorized(g);
    await g.real.recordResult(grant.proposalId, { status: 'failed', resultDigest: 'f'.repeat(64), at: g.f.clock() });
    g.failNext('recordResult', 'before');
    expect(await g.f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'store_unavailable' });
    expect(await g.f.gate.complete(grant, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'result_conflict' });
  });

  it('when the store cannot be read back either: outcome_unknown, and the retry answers duplicate', async () => {
    const g = faultyGate();
    const grant = await authorized(g);
    g.failNext('recordResult', 'lost_reply', true);
    expect(await g.f.gate.complete(grant, { status: 'failed', error: 'boom' })).toMatchObject({ ok: false, reason: 'outcome_unknown' });
    expect((await g.real.getProposal(grant.proposalId))?.result?.status).toBe('failed');
    g.healed();
    expect(await g.f.gate.complete(grant, { status: 'failed', error: 'boom' })).toMatchObject({ ok: true, duplicate: true });
  });
});
