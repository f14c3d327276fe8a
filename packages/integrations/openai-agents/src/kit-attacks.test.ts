import { afterAll, describe, expect, it } from 'vitest';
import { agentApp, approvedInSdk, toolOutputs, WIRINGS } from './agents.test-helper.ts';

/*
 * The gate attack kit's attacks, where they apply to the Agents SDK, run through the
 * SDK's own runner, RunState and ScriptedModel: each executes nothing and comes back as
 * the tool's output with its typed Countersign reason.
 */

const READ = { callId: 'call-read', name: 'read_file', args: { path: '/tmp/a' } };

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());

  describe(`attack kit through the Agents SDK: ${wiring.name}`, () => {
    /** Turn 1, the read approved in Countersign; the saved state with the SDK's approval too. */
    async function approvedState() {
      const app = agentApp(wiring);
      const first = await app.start('read', [READ]);
      await wiring.asOps(first.requests['call-read']!, 'approve');
      return { app, saved: await approvedInSdk(app.agent(), first.result.state.toString(), ['call-read']) };
    }

    it('strict intake: model arguments with duplicate keys are rejected at propose (invalid_arguments), nothing runs', async () => {
      const app = agentApp(wiring);
      const turn = await app.start('list', [{ callId: 'call-dup', name: 'list_dir', args: '{"path":"/tmp","path":"/etc"}' }]);
      expect(turn.result.interruptions).toEqual([]);
      expect(app.executions).toEqual([]);
      expect(toolOutputs(turn.result)).toMatchObject([{ callId: 'call-dup', refusal: { status: 'rejected', reason: 'invalid_arguments' } }]);
    });

    it('cross-run replay: an approved saved state resumed into another run is unknown_call there', async () => {
      const { app, saved } = await approvedState();
      const turn = await app.resume(saved, { runId: `${app.runId}-other` });
      expect(toolOutputs(turn.result)).toMatchObject([{ callId: 'call-read', refusal: { status: 'not_approved', reason: 'unknown_call' } }]);
      expect(app.executions).toEqual([]);
    });

    it('the tool renamed in the saved state (read_file → delete_file, approval re-keyed): tool_mismatch, nothing runs', async () => {
      const app = agentApp(wiring);
      const first = await app.start('read', [READ]);
      await wiring.asOps(first.requests['call-read']!, 'approve');
      const renamed = first.result.state.toString().replaceAll('read_file', 'delete_file');
      const turn = await app.resume(await approvedInSdk(app.agent(), renamed, ['call-read']));
      expect(toolOutputs(turn.result)).toMatchObject([{ callId: 'call-read', refusal: { status: 'not_approved', reason: 'tool_mismatch' } }]);
      expect(app.executions).toEqual([]);
    });

    it('an approval past its deadline never runs (expired)', async () => {
      const { app, saved } = await approvedState();
      wiring.advanceClock(601_000);
      const turn = await app.resume(saved);
      expect(toolOutputs(turn.result)[0]?.refusal).toMatchObject({ status: 'not_approved', reason: expect.stringMatching(/expired/) });
      expect(app.executions).toEqual([]);
    });

    it('concurrent replays: of 10 concurrent resumptions of one approved state exactly one runs', async () => {
      const { app, saved } = await approvedState();
      const turns = await Promise.all(Array.from({ length: 10 }, () => app.resume(saved)));
      expect(app.executions).toEqual([{ tool: 'read_file', args: { path: '/tmp/a' } }]);
      const reasons = turns.map((t) => toolOutputs(t.result)[0]?.refusal?.reason ?? 'ran');
      expect(reasons.filter((r) => r === 'ran')).toHaveLength(1);
      expect(reasons.filter((r) => r !== 'ran')).toEqual(Array(9).fill('already_consumed'));
    });
  });
}
