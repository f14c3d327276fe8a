import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

// The fixture's `deploys` rule: two of alice, bob and carol.
const ALICE = { id: 'alice' };
const BOB = { id: 'bob' };
const CAROL = { id: 'carol' };

async function pendingDeploy() {
  const f = makeGateFixture();
  const proposed = await f.gate.propose(f.call({ toolName: 'deploy', arguments: { service: 'api' } }));
  if (proposed.status !== 'approval_required') throw new Error(proposed.status);
  return { f, requestId: proposed.requestId, proposalId: proposed.proposalId };
}

describe('withdraw: an approver takes back their own approval while the request waits for more', () => {
  it('leaves the request pending without it, audited as a withdrawal by that approver', async () => {
    const { f, requestId } = await pendingDeploy();
    expect((await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' })).ok).toBe(true);
    const withdrawn = await f.gate.approvals.withdraw(ALICE, requestId);
    expect(withdrawn).toMatchObject({ ok: true, request: { status: 'pending', decisions: [] } });
    expect(withdrawn).not.toHaveProperty('auditRecorded');
    const records = await f.audit.read();
    expect(records.at(-1)).toMatchObject({ type: 'withdrawal', requestId, actor: 'alice', toolName: 'deploy' });
    // Bob's approval alone no longer makes two.
    expect(await f.gate.approvals.decide(BOB, { requestId, decision: 'approve' })).toMatchObject({ ok: true, request: { status: 'pending' } });
  });

  it("refuses to withdraw someone else's approval: an eligible approver without one, and a stranger", async () => {
    const { f, requestId } = await pendingDeploy();
    await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
    expect(await f.gate.approvals.withdraw(BOB, requestId)).toMatchObject({ ok: false, reason: 'no_approval' });
    expect(await f.gate.approvals.withdraw({ id: 'mallory' }, requestId)).toMatchObject({ ok: false, reason: 'not_eligible' });
    // Her approval still stands, and nothing was recorded.
    expect(await f.gate.approvals.view(requestId)).toMatchObject({ ok: true, view: { request: { decisions: [{ approver: 'alice' }] } } });
    expect((await f.audit.read()).some((r) => r.type === 'withdrawal')).toBe(false);
  });

  it('refuses twice, and after the request is approved or consumed; the token still works', async () => {
    const { f, requestId, proposalId } = await pendingDeploy();
    await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
    expect((await f.gate.approvals.withdraw(ALICE, requestId)).ok).toBe(true);
    expect(await f.gate.approvals.withdraw(ALICE, requestId)).toMatchObject({ ok: false, reason: 'no_approval' });
    await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
    expect(await f.gate.approvals.decide(CAROL, { requestId, decision: 'approve' })).toMatchObject({ ok: true, request: { status: 'approved' } });
    expect(await f.gate.approvals.withdraw(ALICE, requestId)).toMatchObject({ ok: false, reason: 'already_decided', message: expect.stringContaining('approved') });
    const token = await f.gate.approvals.token(requestId);
    if (!token.ok) throw new Error(token.reason);
    expect((await f.gate.authorize({ proposalId, token: token.token })).status).toBe('authorized');
    expect(await f.gate.approvals.withdraw(CAROL, requestId)).toMatchObject({ ok: false, reason: 'already_decided', message: expect.stringContaining('consumed') });
  });

  it('refuses after the deadline', async () => {
    const { f, requestId } = await pendingDeploy();
    await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
    f.clock.advance(3_600_000);
    expect(await f.gate.approvals.withdraw(ALICE, requestId)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('against the completing approval at the same moment, exactly one wins and the state agrees with it', async () => {
    for (let round = 0; round < 10; round++) {
      const { f, requestId } = await pendingDeploy();
      await f.gate.approvals.decide(ALICE, { requestId, decision: 'approve' });
      const [withdrawn, approved] = await Promise.all([f.gate.approvals.withdraw(ALICE, requestId), f.gate.approvals.decide(BOB, { requestId, decision: 'approve' })]);
      const found = await f.gate.approvals.view(requestId);
      if (!found.ok || !approved.ok) throw new Error('lookup failed');
      const approvers = found.view.request.decisions.map((d) => d.approver);
      if (withdrawn.ok) expect([found.view.status, approvers]).toEqual(['pending', ['bob']]);
      else expect([withdrawn.reason, found.view.status, approvers]).toEqual(['already_decided', 'approved', ['alice', 'bob']]);
    }
  });
});
