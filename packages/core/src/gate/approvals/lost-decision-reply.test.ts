import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { verifyChain } from '../../audit/verify-chain.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';

type WriteName = 'addDecision' | 'recordEdit' | 'revokeApproval' | 'withdrawApproval';

/**
 * A memory ledger whose `write` commits and then throws, as when the reply to COMMIT is
 * lost; with `readsFail`, every call after that write throws too (the store is gone).
 */
function losingReplies(write: WriteName) {
  const audit = new MemoryAuditLog();
  const real = new MemoryLedger({ audit });
  const state = { armed: false, readsFail: false, written: false };
  const ledger = new Proxy(real, {
    get: (target, property) => {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (state.armed && state.readsFail && state.written) throw new Error('connection terminated');
        const outcome = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (state.armed && property === write) {
          state.written = true;
          throw new Error('connection terminated (after COMMIT)');
        }
        return outcome;
      };
    },
  }) as LedgerStore;
  const f = makeGateFixture({ ledger, audit });
  return { f, state, real };
}

async function pending(f: ReturnType<typeof makeGateFixture>, toolName = 'transfer', args: unknown = { amount: 500, to: 'alice' }) {
  const proposed = await f.gate.propose(f.call({ toolName, arguments: args }));
  if (proposed.status !== 'approval_required') throw new Error(proposed.status);
  return proposed;
}

// The fixture's `deploys` rule: two of alice, bob and carol.
const ALICE = { id: 'alice' };

describe('a decision write whose reply is lost after COMMIT is answered as done, never as a failure (#32, was store_unavailable)', () => {
  it('decide: the approval stands and is answered ok, with the request as stored', async () => {
    const { f, state, real } = losingReplies('addDecision');
    const { requestId } = await pending(f);
    state.armed = true;
    const outcome = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    expect(outcome).toMatchObject({ ok: true, request: { requestId, status: 'approved', decisions: [{ approver: 'fiona' }] } });
    expect((await real.getApprovalRequest(requestId))?.status).toBe('approved');
  });

  it('approve-with-edits: the edit stands and is answered ok, with the edited call and its request', async () => {
    const { f, state, real } = losingReplies('recordEdit');
    const { requestId } = await pending(f);
    state.armed = true;
    const outcome = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    if (!outcome.ok) throw new Error(`edit answered ${outcome.reason}`);
    expect(outcome.request.status).toBe('edited');
    expect(outcome.editedProposal?.canonicalArgs).toBe('{"amount":400,"to":"alice"}');
    expect(outcome.editedRequest).toEqual(await real.getApprovalRequest(outcome.editedRequest!.requestId));
  });

  it('revoke: the revocation stands and is answered ok', async () => {
    const { f, state, real } = losingReplies('revokeApproval');
    const { requestId } = await pending(f);
    state.armed = true;
    expect(await f.gate.approvals.revoke(FINANCE, requestId)).toMatchObject({ ok: true, request: { status: 'revoked' } });
    expect((await real.getApprovalRequest(requestId))?.status).toBe('revoked');
  });

  it('withdraw: the withdrawal stands and is answered ok', async () => {
    const { f, state, real } = losingReplies('withdrawApproval');
    const { requestId } = await pending(f, 'deploy', { service: 'api' });
    expect((await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' })).ok).toBe(true);
    state.armed = true;
    expect(await f.gate.approvals.withdraw(ALICE, requestId)).toMatchObject({ ok: true, request: { status: 'pending', decisions: [] } });
    expect((await real.getApprovalRequest(requestId))?.decisions).toEqual([]);
  });

  it('when the store cannot be read back either, each answers outcome_unknown, never a failure', async () => {
    for (const write of ['addDecision', 'recordEdit', 'revokeApproval', 'withdrawApproval'] as const) {
      const { f, state, real } = losingReplies(write);
      const { requestId } = await pending(f, 'deploy', { service: 'api' });
      if (write === 'withdrawApproval') await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
      state.armed = true;
      state.readsFail = true;
      const outcome =
        write === 'revokeApproval'
          ? await f.gate.approvals.revoke(ALICE, requestId)
          : write === 'withdrawApproval'
            ? await f.gate.approvals.withdraw(ALICE, requestId)
            : await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve', ...(write === 'recordEdit' ? { editedArguments: { service: 'web' } } : {}) });
      expect(outcome, write).toMatchObject({ ok: false, reason: 'outcome_unknown' });
      // It did take effect: a failure would have been a lie.
      const stored = await real.getApprovalRequest(requestId);
      const tookEffect = { addDecision: stored?.decisions.length === 1, recordEdit: stored?.status === 'edited', revokeApproval: stored?.status === 'revoked', withdrawApproval: stored?.decisions.length === 0 };
      expect(tookEffect[write], write).toBe(true);
    }
  });
});

describe('approve-with-edits commits its audit records with the edit (#32, were appended after it)', () => {
  it('an audit part that fails rolls the whole edit back: the original stays pending, no edited call', async () => {
    const audit = new MemoryAuditLog();
    const real = new MemoryLedger({ audit });
    // The edit's records go to the log in the ledger's own step; here that step fails.
    const ledger = new Proxy(real, {
      get: (target, property) => {
        const value = Reflect.get(target, property, target);
        if (property !== 'recordEdit' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (input: unknown, records?: unknown) =>
          (value as (...a: unknown[]) => unknown).call(target, input, records === undefined ? undefined : () => {
            throw new Error('audit append failed');
          });
      },
    }) as LedgerStore;
    const f = makeGateFixture({ ledger, audit });
    const { requestId } = await pending(f);
    const outcome = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    expect(outcome).toMatchObject({ ok: false, reason: 'store_unavailable' });
    expect((await real.getApprovalRequest(requestId))?.status).toBe('pending');
    expect((await audit.read()).some((r) => r.type === 'decision')).toBe(false);
  });

  it('an edit whose reply is lost leaves the chain telling the edit: the closing deny and the editor approval are recorded', async () => {
    const { f, state } = losingReplies('recordEdit');
    const { requestId, proposalId } = await pending(f);
    state.armed = true;
    const outcome = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    if (!outcome.ok) throw new Error(outcome.reason);
    const records = await f.audit.read();
    expect(verifyChain(records).ok).toBe(true);
    expect(records.filter((r) => r.type === 'decision').map((r) => [r.proposalId, r.detail?.decision])).toEqual([
      [proposalId, 'deny'],
      [outcome.editedProposal!.proposalId, 'approve'],
    ]);
  });
});
