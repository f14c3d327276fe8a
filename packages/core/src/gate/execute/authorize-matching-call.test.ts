import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

// CASA checks 3 and 4 for a runtime that only has the call it is about to make.
describe('authorizeMatchingCall', () => {
  async function recorded() {
    const f = makeGateFixture();
    const approved = await f.proposeAndApprove();
    return { f, ...approved };
  }

  async function lastRejection(f: ReturnType<typeof makeGateFixture>) {
    return (await f.audit.read()).filter((r) => r.type === 'rejection').at(-1);
  }

  it('with the call id, a different tool is tool_mismatch, audited, and spends nothing', async () => {
    const { f, call, token } = await recorded();
    const outcome = await f.gate.authorizeMatchingCall({ runId: call.runId, callId: call.callId, toolName: 'refund', arguments: { amount: 500, to: 'alice' }, token });
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'tool_mismatch' });
    expect(await lastRejection(f)).toMatchObject({ reason: 'tool_mismatch', callId: call.callId });
    expect(await f.gate.authorizeMatchingCall({ runId: call.runId, callId: call.callId, toolName: 'transfer', arguments: { to: 'alice', amount: 500 }, token })).toMatchObject({
      status: 'authorized',
    });
  });

  it('with the call id, different arguments are args_mismatch, audited', async () => {
    const { f, call, token } = await recorded();
    const outcome = await f.gate.authorizeMatchingCall({ runId: call.runId, callId: call.callId, toolName: 'transfer', arguments: { amount: 50_000, to: 'mallory' }, token });
    expect(outcome).toMatchObject({ status: 'not_approved', reason: 'args_mismatch' });
    expect(await lastRejection(f)).toMatchObject({ reason: 'args_mismatch', callId: call.callId });
  });

  it("with the agent's session, a call recorded in another session is session_mismatch, audited, and spends nothing", async () => {
    const { f, call, token } = await recorded();
    const request = { runId: call.runId, callId: call.callId, toolName: 'transfer', arguments: { to: 'alice', amount: 500 }, token };
    for (const attempt of [request, { ...request, callId: undefined }]) {
      expect(await f.gate.authorizeMatchingCall({ ...attempt, sessionId: 'another-session' })).toMatchObject({ status: 'not_approved', reason: 'session_mismatch' });
    }
    expect(await lastRejection(f)).toMatchObject({ reason: 'session_mismatch', callId: call.callId });
    expect(await f.gate.authorizeMatchingCall({ ...request, sessionId: call.sessionId })).toMatchObject({ status: 'authorized' });
  });

  it('without a call id, a call nobody recorded in the run is unknown_call, audited with what was asked', async () => {
    const { f, call, token } = await recorded();
    for (const attempt of [
      { toolName: 'transfer', arguments: { amount: 501, to: 'alice' } },
      { toolName: 'refund', arguments: { amount: 500, to: 'alice' } },
    ]) {
      expect(await f.gate.authorizeMatchingCall({ runId: call.runId, ...attempt, token })).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    }
    expect(await f.gate.authorizeMatchingCall({ runId: 'another-run', toolName: 'transfer', arguments: { amount: 500, to: 'alice' }, token })).toMatchObject({
      reason: 'unknown_call',
    });
    expect(await lastRejection(f)).toMatchObject({ reason: 'unknown_call', runId: 'another-run' });
    expect(await f.gate.authorizeMatchingCall({ runId: call.runId, callId: 'call-nobody-made', toolName: 'transfer', arguments: {}, token })).toMatchObject({
      reason: 'unknown_call',
    });
  });

  it('without a call id, the matching recorded call is authorized once, with the ledger arguments; then it is no longer open', async () => {
    const { f, call, token, proposalId } = await recorded();
    const request = { runId: call.runId, toolName: 'transfer', arguments: { to: 'alice', amount: 500 }, token };
    const outcome = await f.gate.authorizeMatchingCall(request);
    if (outcome.status !== 'authorized') throw new Error(JSON.stringify(outcome));
    expect(outcome.grant).toMatchObject({ proposalId, canonicalArgs: '{"amount":500,"to":"alice"}' });
    expect(await f.gate.authorizeMatchingCall(request)).toMatchObject({ reason: 'unknown_call' });
    expect(await f.gate.authorizeMatchingCall({ ...request, callId: call.callId })).toMatchObject({ reason: 'already_consumed' });
  });

  it("another agent's recorded call is unknown_call", async () => {
    const { f, call, token } = await recorded();
    const outcome = await f.gate.authorizeMatchingCall({ runId: call.runId, toolName: 'transfer', arguments: { amount: 500, to: 'alice' }, token }, { id: 'intruder' });
    expect(outcome).toMatchObject({ reason: 'unknown_call' });
  });
});
