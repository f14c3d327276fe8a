import { type AdapterKitApp, type AdapterKitCall, describeAdapterAttacks } from '@countersign/core/testing';
import type { ModelMessage } from 'ai';
import { afterAll } from 'vitest';
import { approvalRequests, chatApp, type ScriptedCall, tamperCall, userMessage, WIRINGS, type Wiring, withApprovals } from './chat.test-helper.ts';
import { requestIdOfApproval } from './tool-approval.ts';

/*
 * The adapter attack kit through the AI SDK itself (generateText, its tool approvals,
 * its ModelMessage history), on the in-process gate and over @countersign/client.
 */

const scripted = (calls: readonly AdapterKitCall[]): ScriptedCall[] => calls.map((c) => ({ toolCallId: c.callId, toolName: c.toolName, input: c.arguments }));

/** Every shape in which an AI SDK history carries a tool's output to the model. */
const SHAPES = ['text', 'json', 'content', 'error-text', 'error-json', 'execution-denied', 'provider-executed'] as const;

function output(shape: string, text: string): unknown {
  switch (shape) {
    case 'json':
      return { type: 'json', value: { text } };
    case 'content':
      return { type: 'content', value: [{ type: 'text', text }] };
    case 'error-json':
      return { type: 'error-json', value: { error: text } };
    case 'execution-denied':
      return { type: 'execution-denied', reason: text };
    case 'error-text':
      return { type: 'error-text', value: text };
    default:
      return { type: 'text', value: text };
  }
}

/** `history` with the output for `callId` replaced by a forged one (or a forged call and output appended). */
function forge(history: ModelMessage[], callId: string, shape: string, text: string): ModelMessage[] {
  if (shape === 'provider-executed') {
    return [
      ...history,
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: callId, toolName: 'web_search', input: {}, providerExecuted: true },
          { type: 'tool-result', toolCallId: callId, toolName: 'web_search', output: output('text', text), providerExecuted: true } as never,
        ],
      },
    ];
  }
  let found = false;
  const replaced = history.map((m) => {
    if (m.role !== 'tool') return m;
    return {
      ...m,
      content: m.content.map((p) => {
        if (p.type !== 'tool-result' || p.toolCallId !== callId) return p;
        found = true;
        return { ...p, output: output(shape, text) };
      }),
    } as ModelMessage;
  });
  if (found) return replaced;
  return [
    ...history,
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read_balance', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'read_balance', output: output(shape, text) } as never] },
  ];
}

function kitApp(wiring: Wiring): AdapterKitApp {
  const app = chatApp(wiring);
  let history: ModelMessage[] = [];
  return {
    shapes: SHAPES,
    executions: app.executions,
    async start(calls) {
      const turn = await app.request([userMessage('go')], scripted(calls));
      history = [userMessage('go'), ...turn.responseMessages];
    },
    async requestId(callId) {
      return requestIdOfApproval(approvalRequests(history).find((a) => a.toolCallId === callId)?.reason);
    },
    async resume(options = {}) {
      let resent = history;
      const [first] = approvalRequests(history);
      if (options.tamper !== undefined && first !== undefined) {
        resent = tamperCall(resent, first.toolCallId, { ...(options.tamper.arguments === undefined ? {} : { input: options.tamper.arguments }), ...(options.tamper.toolName === undefined ? {} : { toolName: options.tamper.toolName }) });
      }
      const answers = approvalRequests(resent).map((a) => ({ approvalId: a.approvalId, approved: true }));
      if (options.inject !== undefined) {
        const { callId, toolName, arguments: input } = options.inject;
        resent = [
          ...resent,
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName, input }, { type: 'tool-approval-request', approvalId: `approval-${callId}`, toolCallId: callId }] },
        ];
        answers.push({ approvalId: `approval-${callId}`, approved: true });
      }
      await app.request(withApprovals(resent, answers), []);
    },
    async relay({ callId, shape, text }) {
      await app.request([...forge(history, callId, shape, text), userMessage('and now?')], []);
    },
    async relayUnknownShape() {
      const [last] = history.filter((m) => m.role === 'tool');
      const callId = last?.role === 'tool' && last.content[0]?.type === 'tool-result' ? last.content[0].toolCallId : 'kit-call';
      await app.request([...forge(history, callId, 'text', 'x').map((m) => (m.role === 'tool' ? ({ ...m, content: m.content.map((p) => ({ ...p, output: { type: 'future-output', value: 'x' } })) } as ModelMessage) : m)), userMessage('and now?')], []);
    },
  };
}

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());
  describeAdapterAttacks(`AI SDK, ${wiring.name}`, () => ({
    app: () => kitApp(wiring),
    async decide(requestId, decision, editedArguments) {
      if (editedArguments !== undefined) return wiring.editAsFinance(requestId, editedArguments);
      const decided = await wiring.asFinance(requestId, decision);
      if (!decided.ok) throw new Error(`decision refused: ${decided.reason}`);
    },
    calls: {
      approve: { callId: 'call-pay', toolName: 'transfer', arguments: { to: 'alice', amount: 2500 } },
      allow: { callId: 'call-read', toolName: 'read_balance', arguments: { account: 'main' } },
      unlisted: { callId: 'call-shell', toolName: 'shell', arguments: { cmd: 'ls' } },
      edited: { amount: 25 },
    },
    // The AI SDK runs provider-executed tools at the provider: refused (provider_executed), covered by the shapes above.
    runTimeTools: [],
    auditRecords: () => wiring.audit.read({ limit: 1_000_000 }),
  }));
}
