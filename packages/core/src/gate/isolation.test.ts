import { describe, expect, it } from 'vitest';
import { FINANCE, makeGateFixture } from '../testing/gate-fixture.ts';
import { type Agent, DEFAULT_AGENT_ID } from './common/agent.ts';

const A: Agent = { id: 'agent-a' };
const B: Agent = { id: 'agent-b' };

/** A's transfer, proposed and approved; the token fetched by A. */
async function approvedForA(f: ReturnType<typeof makeGateFixture>) {
  const call = f.call({ runId: 'run-a' });
  const proposed = await f.gate.propose(call, A);
  if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
  await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' });
  const issued = await f.gate.approvals.token(proposed.requestId, A);
  if (!issued.ok) throw new Error(`no token: ${issued.reason}`);
  return { call, proposed, token: issued.token };
}

describe('agents are isolated: a run belongs to the agent that recorded its first call', () => {
  it("B cannot read A's request or fetch its token: both read exactly like an unknown id", async () => {
    const f = makeGateFixture();
    const { proposed } = await approvedForA(f);
    expect(await f.gate.approvals.agentView(B, proposed.requestId)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await f.gate.approvals.agentView(A, proposed.requestId)).toMatchObject({ ok: true, view: { status: 'approved' } });
    const stolen = await f.gate.approvals.token(proposed.requestId, B);
    const unknown = await f.gate.approvals.token('no-such-request', B);
    expect(stolen).toEqual(unknown);
    expect(stolen).toMatchObject({ ok: false, reason: 'not_found' });
    // No identity at all is the in-process owner, which is not A either.
    expect(await f.gate.approvals.token(proposed.requestId)).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it("B cannot dispatch A's approved call, even with A's token; A's approval stays usable", async () => {
    const f = makeGateFixture();
    const { call, proposed, token } = await approvedForA(f);
    const request = f.dispatchFor(call, token);
    const stolen = await f.gate.dispatch(request, B);
    const unknown = await f.gate.dispatch({ ...request, proposalId: 'no-such-proposal' }, B);
    expect(stolen).toEqual(unknown);
    expect(stolen).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    expect(await f.gate.dispatch({ proposalId: proposed.proposalId, token }, B)).toEqual(unknown);
    expect(f.executions).toHaveLength(0);
    // The refusal is audited with who asked for which proposal.
    const refused = (await f.audit.read()).filter((r) => r.type === 'rejection' && r.detail?.agent === 'agent-b');
    expect(refused.map((r) => r.detail?.proposalId)).toContain(proposed.proposalId);
    expect(await f.gate.dispatch(request, A)).toMatchObject({ status: 'executed' });
  });

  it("B recording into A's run is refused before anything is compared: no call_conflict, no request id of A's", async () => {
    const f = makeGateFixture();
    const { call } = await approvedForA(f);
    // The identical call: answered as an idempotent re-record, it would hand B A's request id.
    expect(await f.gate.propose(call, B)).toMatchObject({ status: 'rejected', reason: 'run_owned_by_other_agent' });
    const squat = f.call({ runId: 'run-a', arguments: '{"amount":9000,"to":"mallory"}' });
    const out = await f.gate.propose(squat, B);
    expect(out).toEqual({ status: 'rejected', reason: 'run_owned_by_other_agent', message: expect.any(String) });
    expect(await f.ledger.findProposalByCall('run-a', squat.callId)).toBeUndefined();
    const rejection = (await f.audit.read()).find((r) => r.type === 'rejection' && r.reason === 'run_owned_by_other_agent');
    expect(rejection).toMatchObject({ runId: 'run-a', callId: call.callId, detail: { agent: 'agent-b' } });
  });

  it("B squatting A's run id and call id first: A is told plainly, and B's arguments never run as A's call", async () => {
    const f = makeGateFixture();
    const squat = f.call({ runId: 'run-a', callId: 'call-1', arguments: '{"amount":9000,"to":"mallory"}' });
    expect(await f.gate.propose(squat, B)).toMatchObject({ status: 'approval_required' });
    const honest = { ...squat, arguments: '{"amount":500,"to":"alice"}' };
    const refused = await f.gate.propose(honest, A);
    expect(refused).toMatchObject({ status: 'rejected', reason: 'run_owned_by_other_agent' });
    // A has no proposal id to dispatch (the outcome carries none), and B's proposal is not A's to run.
    expect('proposalId' in refused).toBe(false);
    const squatted = await f.ledger.findProposalByCall('run-a', 'call-1');
    expect(await f.gate.dispatch({ proposalId: squatted!.proposalId }, A)).toMatchObject({ reason: 'unknown_call' });
    expect(f.executions).toHaveLength(0);
  });

  it('in-process callers without an identity share the default owner, and no named agent', async () => {
    const f = makeGateFixture();
    const call = f.call({ runId: 'run-local', toolName: 'read_file', arguments: {} });
    const proposed = await f.gate.propose(call);
    expect(proposed).toMatchObject({ status: 'allowed' });
    expect(await f.ledger.getRunOwner('run-local')).toBe(DEFAULT_AGENT_ID);
    expect(await f.gate.propose(f.call({ runId: 'run-local' }), A)).toMatchObject({ reason: 'run_owned_by_other_agent' });
    expect(await f.gate.dispatch(f.dispatchFor(call), A)).toMatchObject({ reason: 'unknown_call' });
    expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ status: 'executed' });
  });

  it('an invalid agent identity is refused as an invalid call', async () => {
    const f = makeGateFixture();
    for (const agent of [{ id: '' }, { id: 'x'.repeat(257) }, { id: '\ud800' }, { id: 'a', principals: 'user:*' }] as Agent[]) {
      expect(await f.gate.propose(f.call(), agent)).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
    }
    expect(await f.ledger.findProposalByCall('run-1', 'call-1')).toBeUndefined();
  });
});

describe('agents limited to principals', () => {
  const scoped: Agent = { id: 'scoped', principals: ['team:*', 'user:7'] };

  it('a proposal for a principal the agent may not act for is refused, audited, and not recorded', async () => {
    const f = makeGateFixture();
    for (const principal of ['user:42', 'user:70', 'team', 'xteam:ops']) {
      const call = f.call({ principal, runId: `run-${principal}` });
      expect(await f.gate.propose(call, scoped)).toMatchObject({ status: 'rejected', reason: 'principal_not_allowed' });
      expect(await f.ledger.findProposalByCall(call.runId, call.callId)).toBeUndefined();
    }
    const audited = (await f.audit.read()).filter((r) => r.reason === 'principal_not_allowed');
    expect(audited).toHaveLength(4);
    expect(audited[0]).toMatchObject({ type: 'rejection', actor: 'user:42', detail: { agent: 'scoped' } });
    for (const principal of ['team:ops', 'team:', 'user:7']) {
      expect(await f.gate.propose(f.call({ principal, runId: `ok-${principal}` }), scoped)).toMatchObject({ status: 'approval_required' });
    }
  });

  it('an empty list allows no principal', async () => {
    const f = makeGateFixture();
    expect(await f.gate.propose(f.call(), { id: 'nobody', principals: [] })).toMatchObject({ reason: 'principal_not_allowed' });
  });

  it('narrowed after the proposal: dispatch refuses the call', async () => {
    const f = makeGateFixture();
    const call = f.call({ principal: 'team:ops', toolName: 'read_file', arguments: {} });
    expect(await f.gate.propose(call, scoped)).toMatchObject({ status: 'allowed' });
    const narrowed: Agent = { id: 'scoped', principals: ['user:7'] };
    expect(await f.gate.dispatch(f.dispatchFor(call), narrowed)).toMatchObject({ status: 'denied', reason: 'principal_not_allowed' });
    expect(f.executions).toHaveLength(0);
  });
});

describe('dispatch selects the call by the proposal id propose returned', () => {
  it('needs a proposal id; run and call ids are only cross-checks', async () => {
    const f = makeGateFixture();
    const { call, proposalId, token } = await f.proposeAndApprove();
    const { proposalId: _omitted, ...byRunAndCall } = f.dispatchFor(call, token);
    expect(await f.gate.dispatch(byRunAndCall as never)).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    expect(await f.gate.dispatch({ proposalId, token, runId: 'run-other' })).toMatchObject({ reason: 'run_mismatch' });
    expect(await f.gate.dispatch({ proposalId, token, callId: 'call-other' })).toMatchObject({ reason: 'call_mismatch' });
    expect(f.executions).toHaveLength(0);
    expect(await f.gate.dispatch({ proposalId, token })).toMatchObject({ status: 'executed' });
  });
});
