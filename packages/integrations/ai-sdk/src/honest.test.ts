import { afterAll, describe, expect, it } from 'vitest';
import { generateText } from 'ai';
import { approvalRequests, appTools, chatApp, scriptedModel, toolOutputs, USER, userMessage, WIRINGS, withApprovals } from './chat.test-helper.ts';
import { countersign } from './countersign.ts';
import { recordUserDecision } from './record-decision.ts';
import { requestIdOfApproval } from './tool-approval.ts';

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());

  describe(`AI SDK integration, honest flows: ${wiring.name}`, () => {
    for (const stream of [false, true]) {
      const mode = stream ? 'streamText' : 'generateText';
      it(`${mode}: an allowed call runs at once; an approved call runs once, with exactly the approved arguments`, async () => {
        const app = chatApp(wiring);
        const ask = [userMessage('pay alice 2500 and show my balance')];
        const calls = [
          { toolCallId: 'call-read', toolName: 'read_balance', input: { account: 'main' } },
          { toolCallId: 'call-pay', toolName: 'transfer', input: { to: 'alice', amount: 2500 } },
        ];
        const first = await app.request(ask, calls, { stream });
        // The allowed read ran; the transfer waits for an approval, with the Countersign request id.
        expect(app.executions).toEqual([{ tool: 'read_balance', args: { account: 'main' } }]);
        const [request] = approvalRequests(first.responseMessages);
        expect(request).toMatchObject({ toolCallId: 'call-pay' });
        const requestId = requestIdOfApproval(request?.reason);
        expect(requestId).toBeDefined();

        // The user approves in the UI; the app server records it as that user's decision.
        const decided = await recordUserDecision({ index: app.index, runId: app.runId, toolCallId: 'call-pay', decision: 'approve', recorder: wiring.asUser });
        expect(decided).toEqual({ ok: true, requestId });

        const history = withApprovals([...ask, ...first.responseMessages], [{ approvalId: request!.approvalId, approved: true }]);
        const second = await app.request(history, [], { stream });
        expect(second.refusals).toEqual([]);
        expect(app.executions).toEqual([
          { tool: 'read_balance', args: { account: 'main' } },
          { tool: 'transfer', args: { amount: 2500, to: 'alice' } },
        ]);
        expect(toolOutputs(second.responseMessages)).toMatchObject([{ toolCallId: 'call-pay', output: { type: 'json' } }]);
        const status = await wiring.port.callStatus((await app.index.get(app.runId, 'call-pay'))!.proposalId);
        expect(status).toMatchObject({ ok: true, call: { state: 'succeeded' } });
      });
    }

    it('server-side agents ({ waitMs }): an approver decides in Countersign while the SDK waits; the call runs once in the same request', async () => {
      const app = chatApp(wiring);
      const cs = countersign({ port: wiring.port, context: { runId: app.runId, sessionId: 's', principal: USER }, index: app.index, approval: { waitMs: 10_000 } });
      const running = generateText({
        model: cs.model(scriptedModel([{ toolCallId: 'call-pay', toolName: 'transfer', input: { to: 'alice', amount: 2500 } }])),
        tools: cs.tools(appTools(app.executions)),
        toolApproval: cs.toolApproval,
        messages: [userMessage('pay alice')],
      });
      let indexed = await app.index.get(app.runId, 'call-pay');
      for (let i = 0; indexed === undefined && i < 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        indexed = await app.index.get(app.runId, 'call-pay');
      }
      expect(await wiring.asFinance(indexed!.requestId!, 'approve')).toMatchObject({ ok: true });
      const result = await running;
      expect(app.executions).toEqual([{ tool: 'transfer', args: { amount: 2500, to: 'alice' } }]);
      expect(approvalRequests(result.responseMessages)).toEqual([]);
      expect(cs.refusals).toEqual([]);
    });
  });
}
