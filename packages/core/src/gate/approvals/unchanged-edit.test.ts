import { describe, expect, it } from 'vitest';
import { FINANCE, makeGateFixture } from '../../testing/gate-fixture.ts';

// The approval rules live in core, so code deciding in process gets what the server's
// approvers get: an edit that changes nothing is a plain approval of the recorded call,
// not a second call with a request of its own.
describe('approve with an edit that changes nothing', () => {
  it('in process, the same arguments (in another key order) approve the recorded call itself', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const decided = await f.gate.approvals.decide(FINANCE, {
      requestId: proposed.requestId,
      decision: 'approve',
      editedArguments: { to: 'alice', amount: 500 },
    });
    expect(decided).toMatchObject({ ok: true, request: { requestId: proposed.requestId, status: 'approved' } });
    expect(decided.ok && decided.editedProposal).toBeFalsy();
    const issued = await f.gate.approvals.token(proposed.requestId);
    expect(issued.ok).toBe(true);
  });

  it('a real edit is still an edit: the original is closed and the edited call gets its own request', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const decided = await f.gate.approvals.decide(FINANCE, {
      requestId: proposed.requestId,
      decision: 'approve',
      editedArguments: { to: 'alice', amount: 400 },
    });
    expect(decided.ok && decided.editedProposal).toBeTruthy();
    expect(await f.gate.approvals.token(proposed.requestId)).toMatchObject({ ok: false });
  });
});
