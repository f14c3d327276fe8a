import { afterAll, describe, expect, it } from 'vitest';
import { type AgentApp, agentApp, approvedInSdk, editPath, sdkOnlyApp, swapCallIds, toolOutputs, WIRINGS } from './agents.test-helper.ts';

/*
 * Side by side: each attack on the Agents SDK's approval state, first against the SDK's
 * own mechanism (it runs the tool), then against the integration (nothing runs, a typed
 * refusal comes back as the tool's output).
 */

const READ_A = { callId: 'call-a', name: 'read_file', args: { path: '/tmp/a' } };
const READ_B = { callId: 'call-b', name: 'read_file', args: { path: '/etc/passwd' } };

describe("the Agents SDK's own approval mechanism accepts each attack", () => {
  it('approving {path:"/tmp/a"}, editing the serialized RunState to /etc/passwd and resuming EXECUTES /etc/passwd', async () => {
    const app = sdkOnlyApp([READ_A]);
    const first = await app.start('read /tmp/a');
    expect(first.interruptions).toHaveLength(1);
    const approved = await approvedInSdk(app.agent, first.state.toString(), ['call-a']);
    await app.resume(editPath(approved, '/tmp/a', '/etc/passwd'));
    expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/etc/passwd' } }]);
  });

  it('an approval written into the serialized state (nobody approved) runs the tool', async () => {
    const app = sdkOnlyApp([READ_B]);
    const first = await app.start('read it');
    await app.resume(await approvedInSdk(app.agent, first.state.toString(), ['call-b']));
    expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/etc/passwd' } }]);
  });

  it('swapping call ids moves the approval of /tmp/a onto /etc/passwd', async () => {
    const app = sdkOnlyApp([READ_A, READ_B]);
    const first = await app.start('read both');
    expect(first.interruptions).toHaveLength(2);
    const approved = await approvedInSdk(app.agent, first.state.toString(), ['call-a']);
    await app.resume(swapCallIds(approved, { callId: 'call-a', path: '/tmp/a' }, { callId: 'call-b', path: '/etc/passwd' }));
    expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/etc/passwd' } }]);
  });

  it('resuming the same approved state twice runs the tool twice', async () => {
    const app = sdkOnlyApp([READ_A]);
    const first = await app.start('read /tmp/a');
    const approved = await approvedInSdk(app.agent, first.state.toString(), ['call-a']);
    await app.resume(approved);
    await app.resume(approved);
    expect(app.executions).toEqual([
      { tool: 'read_file', args: { path: '/tmp/a' } },
      { tool: 'read_file', args: { path: '/tmp/a' } },
    ]);
  });
});

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());

  describe(`the integration refuses each attack, nothing runs: ${wiring.name}`, () => {
    /** Turn 1: the model's reads wait for approval; `approve` lists the calls an ops approver approves in Countersign. */
    async function interrupted(app: AgentApp, calls: (typeof READ_A)[], approve: string[] = []) {
      const first = await app.start('read', calls);
      expect(first.result.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(calls.map((c) => c.callId));
      for (const callId of approve) await wiring.asOps(first.requests[callId]!, 'approve');
      return first;
    }

    function refusedWith(turn: Awaited<ReturnType<AgentApp['resume']>>, reasons: Record<string, string>) {
      const outputs = Object.fromEntries(toolOutputs(turn.result).map((o) => [o.callId, o.refusal?.reason]));
      expect(outputs).toEqual(reasons);
    }

    it('approved {path:"/tmp/a"} in Countersign, the saved state edited to /etc/passwd: args_mismatch, nothing runs; the honest state runs /tmp/a once', async () => {
      const app = agentApp(wiring);
      const first = await interrupted(app, [READ_A], ['call-a']);
      const saved = await approvedInSdk(app.agent(), first.result.state.toString(), ['call-a']);
      const tampered = editPath(saved, '/tmp/a', '/etc/passwd');

      // Resumed as is (the SDK's approval in the edited string): the guarded tool's authorize refuses.
      const direct = await app.resume(tampered);
      refusedWith(direct, { 'call-a': 'args_mismatch' });
      expect(direct.cs.refusals).toMatchObject([{ status: 'not_approved', reason: 'args_mismatch', callId: 'call-a', toolName: 'read_file' }]);
      // Resumed after carrying Countersign's decisions into the state: rejected in the SDK, same reason.
      refusedWith(await app.resume(tampered, { applyDecisions: true }), { 'call-a': 'args_mismatch' });
      expect(app.executions).toEqual([]);

      const honest = await app.resume(first.result.state.toString(), { applyDecisions: true });
      expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/tmp/a' } }]);
      expect(toolOutputs(honest.result)).toMatchObject([{ callId: 'call-a', refusal: undefined }]);
      expect(honest.result.finalOutput).toBe('done');
    });

    it('an approval written into the saved state without a Countersign decision: approval_pending, nothing runs', async () => {
      const app = agentApp(wiring);
      const first = await interrupted(app, [READ_B]);
      const flipped = await approvedInSdk(app.agent(), first.result.state.toString(), ['call-b']);
      refusedWith(await app.resume(flipped), { 'call-b': 'approval_pending' });
      expect(app.executions).toEqual([]);
      // Carrying Countersign's decisions in instead leaves it pending: the run interrupts again.
      const again = await app.resume(first.result.state.toString(), { applyDecisions: true });
      expect(again.result.interruptions).toHaveLength(1);
      expect(app.executions).toEqual([]);
    });

    it('call ids swapped in the saved state: the approval of /tmp/a does not move to /etc/passwd, nothing runs', async () => {
      const app = agentApp(wiring);
      const first = await interrupted(app, [READ_A, READ_B], ['call-a']);
      const saved = await approvedInSdk(app.agent(), first.result.state.toString(), ['call-a']);
      const turn = await app.resume(swapCallIds(saved, { callId: 'call-a', path: '/tmp/a' }, { callId: 'call-b', path: '/etc/passwd' }));
      refusedWith(turn, { 'call-a': 'args_mismatch' });
      // call-b (now carrying /tmp/a) is still pending in Countersign: the run interrupts for it.
      expect(turn.result.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['call-b']);
      expect(app.executions).toEqual([]);
    });

    it('resuming the same approved state twice (replay): runs once, the second is already_consumed', async () => {
      const app = agentApp(wiring);
      const first = await interrupted(app, [READ_A], ['call-a']);
      const saved = await approvedInSdk(app.agent(), first.result.state.toString(), ['call-a']);
      await app.resume(saved);
      const replay = await app.resume(saved);
      expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/tmp/a' } }]);
      refusedWith(replay, { 'call-a': 'already_consumed' });
      expect(replay.cs.refusals).toMatchObject([{ status: 'not_approved', reason: 'already_consumed' }]);
    });
  });
}
