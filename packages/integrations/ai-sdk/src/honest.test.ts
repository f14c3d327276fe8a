import { afterAll, describe, expect, it } from 'vitest';
import { approvalRequests, chatApp, toolOutputs, userMessage, WIRINGS, withApprovals } from './chat.test-helper.ts';
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
  });
}
