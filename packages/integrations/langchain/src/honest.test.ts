import { dropSchema, describePg, randomSchema, TEST_PG_URL } from '@countersign/store-postgres/testing';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { guardedAgent, inProcessWiring, pendingRequests, toolMessages, WIRINGS } from './agent.test-helper.ts';
import { refusalOf } from './refusal.ts';

const READ = { id: 'call-read', name: 'read_balance', args: { account: 'main' } };
const PAY = { id: 'call-pay', name: 'transfer', args: { to: 'alice', amount: 2500 } };

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());

  describe(`LangChain integration, honest flows: ${wiring.name}`, () => {
    it('an allowed call runs at once; an approved call runs once, with exactly the approved arguments, and the agent goes on', async () => {
      const app = guardedAgent(wiring, [READ, PAY]);
      const first = await app.start();
      expect(app.executions).toEqual([{ tool: 'read_balance', args: { account: 'main' } }]);
      const [request] = pendingRequests(first);
      expect(request).toMatchObject({ type: 'countersign_approval', toolCallId: 'call-pay', toolName: 'transfer', args: PAY.args });

      expect(await wiring.asUser(request!.requestId, 'approve')).toEqual({ ok: true });
      const done = await app.resume('ok');
      expect(app.executions).toEqual([
        { tool: 'read_balance', args: { account: 'main' } },
        { tool: 'transfer', args: { amount: 2500, to: 'alice' } },
      ]);
      expect(app.refusals).toEqual([]);
      expect(toolMessages(done).map((m) => [m.tool_call_id, m.status])).toEqual([
        ['call-read', 'success'],
        ['call-pay', 'success'],
      ]);
      // The relay check before the last model call passed: the model answered.
      expect(done.messages.at(-1)?.content).toBe('done');
      expect(await wiring.port.callStatus(request!.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    });

    it('approve-with-edits in Countersign: the edited call (its own proposal) runs with the edited arguments, once', async () => {
      const app = guardedAgent(wiring, [PAY]);
      const [request] = pendingRequests(await app.start());
      expect(await wiring.asUser(request!.requestId, 'approve', { to: 'alice', amount: 25 })).toEqual({ ok: true });
      const done = await app.resume('ok');
      expect(app.executions).toEqual([{ tool: 'transfer', args: { to: 'alice', amount: 25 } }]);
      const [message] = toolMessages(done);
      expect(message).toMatchObject({ tool_call_id: 'call-pay', status: 'success' });
      expect((message!.additional_kwargs.countersign as { callId: string }).callId).toMatch(/^call-pay~edit-/);
      expect(done.messages.at(-1)?.content).toBe('done');
      expect(await wiring.port.callStatus(request!.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed', request: { status: 'edited' } } });
    });

    it("an edit the edited call's own policy verdict denies is refused in Countersign; the call stays unapproved", async () => {
      const app = guardedAgent(wiring, [PAY]);
      const [request] = pendingRequests(await app.start());
      expect(await wiring.asUser(request!.requestId, 'approve', { to: 'alice', amount: 1_000_000 })).toEqual({ ok: false, reason: 'edit_denied_by_policy' });
      const result = await app.resume('ok');
      expect(app.executions).toEqual([]);
      // Still undecided in Countersign: interrupted again, nothing refused for good.
      expect(toolMessages(result)).toEqual([]);
      expect(pendingRequests(result)).toMatchObject([{ requestId: request!.requestId }]);
    });

    it('server-side agents (waitMs): an approver decides in Countersign while the tool call waits; no interrupt', async () => {
      const app = guardedAgent(wiring, [PAY], { waitMs: 10_000 });
      const running = app.start();
      let requestId: string | undefined;
      for (let i = 0; requestId === undefined && i < 300; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const state = (await app.agent.getState(app.config)) as unknown as { values: { countersignCalls?: Record<string, { requestId?: string }> } };
        requestId = state.values.countersignCalls?.['call-pay']?.requestId;
      }
      expect(await wiring.asFinance(requestId!, 'approve')).toEqual({ ok: true });
      const done = await running;
      expect(pendingRequests(done)).toEqual([]);
      expect(app.executions).toEqual([{ tool: 'transfer', args: { amount: 2500, to: 'alice' } }]);
    });
  });
}

describePg('LangChain integration with the Postgres checkpointer: the app restarts between the interrupt and the resume', () => {
  const schema = randomSchema();
  afterAll(() => dropSchema(schema));

  it('a new process (new agent, new middleware, new saver) resumes the thread; the approved call runs once', async () => {
    const wiring = inProcessWiring();
    const saver = () => PostgresSaver.fromConnString(TEST_PG_URL, { schema });
    const firstSaver = saver();
    await firstSaver.setup();
    const before = guardedAgent(wiring, [PAY], { checkpointer: firstSaver });
    const [request] = pendingRequests(await before.start());
    const paused = await before.checkpointId();
    await firstSaver.end();

    expect(await wiring.asUser(request!.requestId, 'approve')).toEqual({ ok: true });
    const secondSaver = saver();
    const after = guardedAgent(wiring, [PAY], { checkpointer: secondSaver, threadId: before.threadId });
    try {
      const done = await after.resume('ok');
      expect(after.executions).toEqual([{ tool: 'transfer', args: { amount: 2500, to: 'alice' } }]);
      expect(done.messages.at(-1)?.content).toBe('done');
      // Resuming the interrupted checkpoint (read back from PostgreSQL) again: nothing runs, the real result is shown.
      const replay = await after.resume('ok', { checkpoint_id: paused });
      expect(refusalOf(toolMessages(replay).at(-1))).toBeUndefined();
      expect(toolMessages(replay).at(-1)?.content).toBe(toolMessages(done).at(-1)?.content);
      expect(after.executions).toHaveLength(1);
    } finally {
      await secondSaver.end();
    }
  });
});
