import { describe, expect, it } from 'vitest';
import { runInProcessExample } from './in-process.ts';

describe('the README in-process example', () => {
  it('runs the approved call once, with the arguments the model produced, and refuses the replay', async () => {
    const { proposed, first, replay, transfers } = await runInProcessExample();
    expect(proposed).toMatchObject({ status: 'approval_required' });
    expect(first).toMatchObject({ status: 'executed' });
    expect(replay).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(transfers).toEqual([{ amount: 500, to: 'alice' }]);
  });

  it("stops at a refused propose: another agent's call recorded first under the same run and call id never runs", async () => {
    const { proposed, first, transfers } = await runInProcessExample({
      beforePropose: async (gate) => {
        // Another agent records first, under the example's run and call id, with its own arguments.
        const squat = { runId: 'run-1', sessionId: 'session-1', principal: 'user:42', callId: 'call_1', toolName: 'transfer' };
        await gate.propose({ ...squat, arguments: '{"to":"mallory","amount":500}' }, { id: 'other-agent' });
      },
    });
    expect(proposed).toMatchObject({ status: 'rejected', reason: 'run_owned_by_other_agent' });
    expect(first).toBeUndefined();
    expect(transfers).toEqual([]);
  });
});
