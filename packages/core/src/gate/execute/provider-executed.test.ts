import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

// A hosted tool the model's provider ran (a Responses `web_search_call`, a Messages
// `server_tool_use`) is recorded so policy decides on it; it must never run a second time
// through Countersign, even where a runtime or the gateway offers a tool of that name.
describe('a call the provider executed', () => {
  const run = { runId: 'run-hosted', sessionId: 'session-1', principal: 'user:42' };
  const readFile = { name: 'read_file', arguments: '{"path":"/etc/motd"}' };

  async function recordedByProvider() {
    const f = makeGateFixture();
    const [outcome] = await f.gate.proposeResponse({ ...run, toolCalls: [{ id: 'ws_1', ...readFile, executedBy: 'provider' }] });
    if (outcome?.status !== 'allowed') throw new Error(`expected allowed, got ${JSON.stringify(outcome)}`);
    return { f, proposalId: outcome.proposalId };
  }

  it('is refused provider_executed by authorize, authorizeMatchingCall (with and without the call id) and dispatch; audited; nothing runs', async () => {
    const { f, proposalId } = await recordedByProvider();
    const asked = { runId: run.runId, toolName: readFile.name, arguments: { path: '/etc/motd' } };
    const attempts = [
      f.gate.authorize({ proposalId }),
      f.gate.authorizeMatchingCall({ ...asked, callId: 'ws_1' }),
      f.gate.authorizeMatchingCall(asked),
      f.gate.dispatch({ proposalId }),
    ];
    for (const outcome of await Promise.all(attempts)) expect(outcome).toMatchObject({ status: 'denied', reason: 'provider_executed' });
    expect(f.executions).toEqual([]);
    const rejections = (await f.audit.read()).filter((r) => r.type === 'rejection');
    expect(rejections.map((r) => r.reason)).toEqual(Array(4).fill('provider_executed'));
    expect(rejections.every((r) => r.callId === 'ws_1')).toBe(true);
    expect(await f.gate.callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
  });

  it('policy asking a person is refused provider_executed at propose: nothing recorded, no approval request opened, audited', async () => {
    const f = makeGateFixture();
    const transfer = { id: 'srvtoolu_1', name: 'transfer', arguments: '{"amount":500,"to":"alice"}', executedBy: 'provider' as const };
    const [outcome] = await f.gate.proposeResponse({ ...run, toolCalls: [transfer] });
    expect(outcome).toMatchObject({ status: 'denied', reason: 'provider_executed' });
    expect(await f.ledger.findProposalByCall(run.runId, transfer.id)).toBeUndefined();
    expect(await f.ledger.listApprovalRequests({ status: 'pending' }, f.clock())).toEqual([]);
    expect((await f.audit.read()).filter((r) => r.callId === transfer.id).map((r) => [r.type, r.reason])).toEqual([['rejection', 'provider_executed']]);
  });

  it('without a call id, an older call the provider ran does not shadow the runtime call of the same tool and arguments', async () => {
    const { f } = await recordedByProvider();
    f.clock.advance(1_000);
    const [runtime] = await f.gate.proposeResponse({ ...run, toolCalls: [{ id: 'call_1', ...readFile }] });
    if (runtime?.status !== 'allowed') throw new Error(`expected allowed, got ${JSON.stringify(runtime)}`);
    const outcome = await f.gate.authorizeMatchingCall({ runId: run.runId, toolName: readFile.name, arguments: { path: '/etc/motd' } });
    expect(outcome).toMatchObject({ status: 'authorized', grant: { proposalId: runtime.proposalId } });
    // The runtime call is spent: what is left open is the provider's, still refused as such.
    expect(await f.gate.authorizeMatchingCall({ runId: run.runId, toolName: readFile.name, arguments: { path: '/etc/motd' } })).toMatchObject({
      status: 'denied',
      reason: 'provider_executed',
    });
  });

  it('the same call made by the model for the runtime is authorized (only the provider flag refuses)', async () => {
    const f = makeGateFixture();
    const [outcome] = await f.gate.proposeResponse({ ...run, toolCalls: [{ id: 'call_1', ...readFile }] });
    expect(await f.gate.authorizeMatchingCall({ runId: run.runId, callId: 'call_1', toolName: readFile.name, arguments: { path: '/etc/motd' } })).toMatchObject({
      status: 'authorized',
    });
    expect(outcome).toMatchObject({ status: 'allowed' });
  });
});
