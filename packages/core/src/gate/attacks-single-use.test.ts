import { describe, expect, it } from 'vitest';
import { FINANCE, makeGateFixture } from '../testing/gate-fixture.ts';

// Single use (invariant 5): an approval or an allowed call runs once, a revoked one never, even under concurrent dispatch.

describe('gate: attacks are rejected with their reason code (single use)', () => {
  it('double consumption, sequential', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'executed' });
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({
      status: 'not_approved',
      reason: 'already_consumed',
    });
    expect(f.executions).toHaveLength(1);
  });

  it('double consumption, 1,000 concurrent dispatches: exactly one executes', async () => {
    const f = makeGateFixture();
    const { call, token } = await f.proposeAndApprove();
    const outcomes = await Promise.all(Array.from({ length: 1000 }, () => f.gate.dispatch(f.dispatchFor(call, token))));
    expect(outcomes.filter((o) => o.status === 'executed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'not_approved' && o.reason === 'already_consumed')).toHaveLength(999);
    expect(f.executions).toHaveLength(1);
  });

  it('an allowed call also runs only once', async () => {
    const f = makeGateFixture();
    const c = f.call({ toolName: 'read_file', arguments: { path: 'a.txt' } });
    await f.gate.propose(c);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => f.gate.dispatch(f.dispatchFor(c))));
    expect(outcomes.filter((o) => o.status === 'executed')).toHaveLength(1);
  });

  it('a revoked approval never runs', async () => {
    const f = makeGateFixture();
    const { call, token, requestId } = await f.proposeAndApprove();
    expect(await f.gate.approvals.revoke(FINANCE, requestId)).toMatchObject({ ok: true, request: { status: 'revoked' } });
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({
      status: 'not_approved',
      reason: 'approval_revoked',
    });
    expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ reason: 'approval_revoked' });
  });

  it('without a token, the outcome says where the request stands', async () => {
    const f = makeGateFixture();
    const used = await f.proposeAndApprove();
    expect(await f.gate.dispatch(f.dispatchFor(used.call))).toMatchObject({ reason: 'missing' });
    await f.gate.dispatch(f.dispatchFor(used.call, used.token));
    expect(await f.gate.dispatch(f.dispatchFor(used.call))).toMatchObject({ reason: 'already_consumed' });
    const stale = f.call();
    await f.gate.propose(stale);
    f.clock.advance(601_000);
    expect(await f.gate.dispatch(f.dispatchFor(stale))).toMatchObject({ status: 'not_approved', reason: 'expired' });
    expect(f.executions).toHaveLength(1);
  });
});
