import { FINANCE, faultyConsumeLedger, makeGateFixture } from '@countersign/core/testing';
import { expect, it } from 'vitest';
import { linkedPair } from '@countersign/server/testing';

it('an authorize whose consume may have committed reaches the client as outcome_unknown, and the call reads dispatched', async () => {
  const { ledger, audit, state } = faultyConsumeLedger();
  const f = makeGateFixture({ ledger, audit });
  const { client, close } = linkedPair({ gate: f.gate });
  try {
    const [proposed] = await client.propose({
      runId: 'run-lost',
      sessionId: 's',
      principal: 'user:1',
      toolCalls: [{ id: 'c-1', name: 'transfer', arguments: '{"amount": 500, "to": "bob"}' }],
    });
    if (proposed?.status !== 'approval_required') throw new Error(JSON.stringify(proposed));
    expect(await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' })).toMatchObject({ ok: true });
    const issued = await client.token(proposed.requestId);
    if (!issued.ok) throw new Error(JSON.stringify(issued));

    state.fault = 'after_commit';
    expect(await client.authorize({ proposalId: proposed.proposalId, token: issued.token })).toMatchObject({
      status: 'not_approved',
      reason: 'outcome_unknown',
      proposalId: proposed.proposalId,
    });
    expect(await client.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    expect(await client.authorize({ proposalId: proposed.proposalId, token: issued.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  } finally {
    await close();
  }
});
