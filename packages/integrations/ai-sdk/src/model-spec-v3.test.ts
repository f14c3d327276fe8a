import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { approvalRequests, appTools, chatApp, inProcessWiring, scriptedModel, USER, userMessage, withApprovals } from './chat.test-helper.ts';
import { countersign } from './countersign.ts';
import { recordUserDecision } from './record-decision.ts';

// The model wrapper does not depend on the model spec: `ai` 6 models are spec v3, `ai` 7's v4.
describe('a spec-v3 model (MockLanguageModelV3, what ai 6 providers implement)', () => {
  it('is guarded the same: the approved call runs once, the replay is already_consumed', async () => {
    const wiring = inProcessWiring();
    const app = chatApp(wiring);
    const v3 = (calls: Parameters<typeof scriptedModel>[0]) => {
      const v4 = scriptedModel(calls);
      return new MockLanguageModelV3({ doGenerate: (options) => v4.doGenerate(options as never) as never });
    };
    const request = async (messages: ModelMessage[], calls: Parameters<typeof scriptedModel>[0]) => {
      const cs = countersign({ port: wiring.port, context: { runId: app.runId, sessionId: 's', principal: USER }, index: app.index });
      const result = await generateText({ model: cs.model(v3(calls)), tools: cs.tools(appTools(app.executions)), toolApproval: cs.toolApproval, messages });
      return { messages: result.responseMessages, refusals: cs.refusals };
    };
    const ask = [userMessage('pay alice')];
    const first = await request(ask, [{ toolCallId: 'call-pay', toolName: 'transfer', input: { to: 'alice', amount: 2500 } }]);
    const [approval] = approvalRequests(first.messages);
    await recordUserDecision({ index: app.index, runId: app.runId, toolCallId: 'call-pay', decision: 'approve', recorder: wiring.asUser });
    const approved = withApprovals([...ask, ...first.messages], [{ approvalId: approval!.approvalId, approved: true }]);
    await request(approved, []);
    const replay = await request(approved, []);
    expect(app.executions).toEqual([{ tool: 'transfer', args: { amount: 2500, to: 'alice' } }]);
    expect(replay.refusals).toMatchObject([{ reason: 'already_consumed' }]);
  });
});
