import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../testing/gate-fixture.ts';
import { faultyConsumeLedger } from '../testing/faulty-consume-ledger.ts';

describe('an authorize whose consume failed is never answered as a refusal of something that took effect', () => {
  it('a consume that committed before its reply was lost answers outcome_unknown; the call reads dispatched and is never authorized again', async () => {
    const { ledger, audit, state } = faultyConsumeLedger();
    const f = makeGateFixture({ ledger, audit });
    const approved = await f.proposeAndApprove();
    state.fault = 'after_commit';
    const outcome = await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token });
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown', proposalId: approved.proposalId });
    expect(await f.gate.callStatus(approved.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    expect((await audit.read()).filter((r) => r.type === 'dispatch')).toHaveLength(1);
    expect((await audit.read()).filter((r) => r.type === 'rejection')).toHaveLength(0);
    expect(await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it('when the store cannot say either, the answer is still outcome_unknown', async () => {
    const { ledger, audit, state } = faultyConsumeLedger();
    const f = makeGateFixture({ ledger, audit });
    const approved = await f.proposeAndApprove();
    state.fault = 'after_commit_and_reads';
    expect(await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token })).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown' });
  });

  it('a consume that failed before committing answers store_unavailable, and authorizing again runs the call once', async () => {
    const { ledger, audit, state } = faultyConsumeLedger();
    const f = makeGateFixture({ ledger, audit });
    const approved = await f.proposeAndApprove();
    state.fault = 'before_commit';
    expect(await f.gate.authorize({ proposalId: approved.proposalId, token: approved.token })).toMatchObject({ status: 'not_approved', reason: 'store_unavailable' });
    expect(await f.gate.callStatus(approved.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
    expect(await f.gate.dispatch({ proposalId: approved.proposalId, token: approved.token })).toMatchObject({ status: 'executed' });
    expect(f.executions).toHaveLength(1);
  });
});
