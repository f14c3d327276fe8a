import { describe, expect, it } from 'vitest';
import { type ConsumeFault, faultyConsumeLedger } from '../../testing/faulty-consume-ledger.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

/** An approved call, authorized once while the store fails the consume as `fault` says. */
async function authorizeThrough(fault: ConsumeFault) {
  const { ledger, audit, state } = faultyConsumeLedger();
  const f = makeGateFixture({ ledger, audit });
  const approved = await f.proposeAndApprove();
  state.fault = fault;
  const request = { proposalId: approved.proposalId, token: approved.token };
  return { f, audit, request, outcome: await f.gate.authorize(request) };
}

describe('an authorize whose consume failed is never answered as a refusal of something that took effect', () => {
  it('a consume that committed before its reply was lost answers outcome_unknown; the call reads dispatched and is never authorized again', async () => {
    const { f, audit, request, outcome } = await authorizeThrough('after_commit');
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown', proposalId: request.proposalId });
    expect(await f.gate.callStatus(request.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    expect((await audit.read()).filter((r) => r.type === 'dispatch')).toHaveLength(1);
    expect((await audit.read()).filter((r) => r.type === 'rejection')).toHaveLength(0);
    expect(await f.gate.authorize(request)).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it('when the store cannot say either, the answer is still outcome_unknown', async () => {
    const { outcome } = await authorizeThrough('after_commit_and_reads');
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown' });
  });

  it('a consume that failed before committing answers store_unavailable, and authorizing again runs the call once', async () => {
    const { f, request, outcome } = await authorizeThrough('before_commit');
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'store_unavailable' });
    expect(await f.gate.callStatus(request.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
    expect(await f.gate.dispatch(request)).toMatchObject({ status: 'executed' });
    expect(f.executions).toHaveLength(1);
  });
});
