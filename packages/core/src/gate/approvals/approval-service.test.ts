import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';

/** A ledger that works until `down` is set, then fails every call like an unreachable store. */
function flakyLedger() {
  const state = { down: false };
  const inner = new MemoryLedger();
  const ledger = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.down) return Promise.reject(new Error('connection refused'));
        return value.apply(target, args);
      };
    },
  }) as LedgerStore;
  return { ledger, state };
}

describe('approval service: every operation answers { ok }, never a bare boolean or a throw', () => {
  it('view, agentView and listFor report an unreachable store as store_unavailable instead of throwing', async () => {
    const { ledger, state } = flakyLedger();
    const f = makeGateFixture({ ledger });
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    state.down = true;
    const down = { ok: false, reason: 'store_unavailable' };
    await expect(f.gate.approvals.view(proposed.requestId)).resolves.toMatchObject(down);
    await expect(f.gate.approvals.agentView({ id: 'someone' }, proposed.requestId)).resolves.toMatchObject(down);
    await expect(f.gate.approvals.listFor(FINANCE)).resolves.toMatchObject(down);
    await expect(f.gate.approvals.revoke(FINANCE, proposed.requestId)).resolves.toMatchObject(down);
    await expect(f.gate.approvals.token(proposed.requestId)).resolves.toMatchObject(down);
    await expect(f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' })).resolves.toMatchObject(down);
  });

  it('view: not_found for an unknown (or non-string) id; agentView: not_found for another agent', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    expect(await f.gate.approvals.view('nope')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.view(42 as unknown as string)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.agentView({ id: 'other-agent' }, proposed.requestId)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.view(proposed.requestId)).toMatchObject({ ok: true, view: { status: 'pending' } });
  });

  it('revoke says why it did nothing: not_found, not_eligible, not_revocable', async () => {
    const f = makeGateFixture();
    expect(await f.gate.approvals.revoke(FINANCE, 'nope')).toMatchObject({ ok: false, reason: 'not_found' });
    const { requestId, proposalId, token } = await f.proposeAndApprove();
    expect(await f.gate.approvals.revoke({ id: 'mallory' }, requestId)).toMatchObject({ ok: false, reason: 'not_eligible' });
    expect((await f.gate.authorize({ proposalId, token })).status).toBe('authorized');
    // Already used: there is nothing left to withdraw.
    expect(await f.gate.approvals.revoke(FINANCE, requestId)).toMatchObject({ ok: false, reason: 'not_revocable', message: 'request is consumed' });
  });

  it('revoke: the request comes back revoked and its token stops working', async () => {
    const f = makeGateFixture();
    const { requestId, proposalId, token } = await f.proposeAndApprove();
    expect(await f.gate.approvals.revoke(FINANCE, requestId)).toMatchObject({ ok: true, request: { requestId, status: 'revoked' } });
    expect(await f.gate.authorize({ proposalId, token })).toMatchObject({ status: 'not_approved' });
  });

  it('the view of an edited request says where the call went', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const decided = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    if (!decided.ok) throw new Error(decided.reason);
    const found = await f.gate.approvals.view(proposed.requestId);
    expect(found).toMatchObject({
      ok: true,
      view: { status: 'edited', edited: { proposalId: decided.editedProposal?.proposalId, requestId: decided.editedRequest?.requestId } },
    });
  });
});
