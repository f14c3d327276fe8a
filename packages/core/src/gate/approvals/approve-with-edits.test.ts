import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';

const WRITES = new Set(['recordProposal', 'addDecision', 'createApprovalRequest', 'recordEdit']);

/**
 * A ledger whose `failAt`-th write (counted from `arm()`) fails like a store dropping
 * mid-operation; it remembers every proposal id a write tried to record.
 */
function failingLedger(failAt: number) {
  const inner = new MemoryLedger();
  const state = { armed: false, writes: 0, proposalIds: [] as string[] };
  const ledger = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.armed && WRITES.has(String(property))) {
          const input = args[0] as { proposalId?: string; proposal?: { proposalId: string } };
          const proposalId = input.proposal?.proposalId ?? (property === 'recordProposal' ? input.proposalId : undefined);
          if (proposalId !== undefined) state.proposalIds.push(proposalId);
          state.writes += 1;
          if (state.writes === failAt) return Promise.reject(new Error('connection reset'));
        }
        return value.apply(target, args);
      };
    },
  }) as LedgerStore;
  return { ledger, inner, state, arm: () => (state.armed = true) };
}

describe('approve-with-edits: all of the edit or none of it', () => {
  it('a store failing at any write of an edit leaves either the whole edit or nothing (never a closed original without its replacement)', async () => {
    let failed = 0;
    for (let failAt = 1; failAt <= 4; failAt++) {
      const { ledger, inner, state, arm } = failingLedger(failAt);
      const f = makeGateFixture({ ledger });
      const proposed = await f.gate.propose(f.call());
      if (proposed.status !== 'approval_required') throw new Error(proposed.status);
      arm();
      const decided = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
      const original = await inner.getApprovalRequest(proposed.requestId);
      if (decided.ok) {
        // Everything is there: the closed original, the edited call and its approved request.
        expect(original).toMatchObject({ status: 'edited', decisions: [{ editedProposalId: decided.editedProposal?.proposalId }] });
        expect(await inner.findApprovalRequestByProposal(decided.editedProposal?.proposalId ?? '')).toMatchObject({ status: 'approved' });
      } else {
        failed++;
        expect(decided).toMatchObject({ ok: false, reason: 'store_unavailable' });
        // Nothing is there: the original pending and undecided, no edited call, no request for one.
        expect(original).toMatchObject({ status: 'pending', decisions: [] });
        for (const id of state.proposalIds) {
          expect(await inner.getProposal(id), `write ${failAt} failed: edited proposal left behind`).toBeUndefined();
          expect(await inner.findApprovalRequestByProposal(id)).toBeUndefined();
        }
        expect(await f.gate.approvals.view(proposed.requestId)).toMatchObject({ ok: true, view: { status: 'pending' } });
      }
    }
    // Some failure must have hit the edit, or the all-or-nothing branch above checked nothing.
    expect(failed).toBeGreaterThan(0);
  });

  it('the edit is one ledger write', async () => {
    const { ledger, state, arm } = failingLedger(0);
    const f = makeGateFixture({ ledger });
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    arm();
    const decided = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    expect(decided).toMatchObject({ ok: true, request: { status: 'edited' }, editedRequest: { status: 'approved' } });
    expect(state.writes).toBe(1);
  });
});
