import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTokens } from './authenticate.ts';
import { startProxy } from './start-proxy.ts';
import { fakeGate } from './testing/fake-gate.ts';
import { type ScriptedAnswer, sseEvent, startScriptedUpstream } from './testing/scripted-upstream.ts';

/**
 * The proxy observes the whole answer (issue 25, item 3): every tool call of a stream is
 * recorded before the official openai client sees the answer complete, whatever the order
 * of its events, and bytes that carry no call reach the client exactly as they left the model.
 */
const AGENT_TOKEN = 'agent-token-0123456789abcdef0123456789';
const RUN = 'run-whole-stream';
const USER = [{ role: 'user' as const, content: 'x' }];

const CHUNK = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'scripted' };
const chatChunk = (choices: Array<Record<string, unknown>>) => sseEvent({ ...CHUNK, choices });
const delta = (d: Record<string, unknown>, finish: string | null = null, index = 0) => ({ index, delta: d, logprobs: null, finish_reason: finish });
const toolDelta = (index: number, fields: Record<string, unknown>, fn: Record<string, unknown>) => ({ tool_calls: [{ index, ...fields, function: fn }] });
const stream = (chunks: string[]): ScriptedAnswer => ({ contentType: 'text/event-stream', chunks });

function fc(id: string, callId: string, name: string, args: string) {
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status: 'completed' };
}
function responseOf(status: string, output: unknown[]) {
  return { id: 'resp_s', object: 'response', created_at: 1_700_000_000, status, model: 'scripted', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] };
}
/** A Responses API stream of function calls; `completedOutput` is what the terminal event claims. */
function responsesStream(calls: Array<ReturnType<typeof fc>>, completedOutput: unknown[] = calls): ScriptedAnswer {
  let n = 0;
  const ev = (type: string, fields: Record<string, unknown>) => sseEvent({ type, sequence_number: n++, ...fields }, type);
  const chunks = [ev('response.created', { response: responseOf('in_progress', []) })];
  calls.forEach((item, output_index) => {
    chunks.push(ev('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } }));
    chunks.push(ev('response.function_call_arguments.delta', { output_index, item_id: item.id, delta: item.arguments }));
    chunks.push(ev('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: item.arguments }));
    chunks.push(ev('response.output_item.done', { output_index, item }));
  });
  chunks.push(ev('response.completed', { response: responseOf('completed', completedOutput) }));
  return stream(chunks);
}

describe('the proxy observes the whole stream', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(answer: (body: Record<string, unknown>, path: string) => ScriptedAnswer) {
    const upstream = await startScriptedUpstream(answer);
    const { gate, state } = fakeGate();
    const proxy = await startProxy({ gate, authenticate: agentTokens([{ name: 'runtime', token: AGENT_TOKEN, principal: 'alice' }]), upstream: { baseUrl: upstream.baseUrl } });
    open.push(proxy, upstream);
    const client = new OpenAI({ baseURL: proxy.baseUrl, apiKey: AGENT_TOKEN, defaultHeaders: { 'x-countersign-run': RUN }, maxRetries: 0 });
    const recorded = () => state.proposed.flatMap((p) => p.response.toolCalls);
    return { client, state, proxy, recorded };
  }

  it('responses: every function call of a stream is recorded before the client sees response.completed, not only the first', async () => {
    const calls = [fc('fc_1', 'call_a', 'list_workflow_runs', '{"status":"failure"}'), fc('fc_2', 'call_b', 'rerun_workflow', '{"run":7}')];
    const { client, state, recorded } = await setup(() => responsesStream(calls));
    const order: string[] = [];
    state.answer = (call) => {
      order.push(`recorded ${call.id}`);
      return { status: 'allowed', proposalId: `p-${call.id}`, callId: call.id, argsDigest: 'd' };
    };
    const events = await client.responses.create({ model: 'm', input: 'x', stream: true });
    for await (const event of events) if (event.type === 'response.completed') order.push(`completed with ${event.response.output.length} calls`);
    expect(recorded()).toEqual([
      { id: 'call_a', name: 'list_workflow_runs', arguments: '{"status":"failure"}' },
      { id: 'call_b', name: 'rerun_workflow', arguments: '{"run":7}' },
    ]);
    expect(order).toEqual(['recorded call_a', 'recorded call_b', 'completed with 2 calls']);
  });

  it('responses: output_item.done and response.completed disagreeing on a call\'s arguments is refused, nothing recorded', async () => {
    const done = fc('fc_1', 'call_a', 'transfer', '{"amount":50}');
    const { client, recorded } = await setup(() => responsesStream([done], [{ ...done, arguments: '{"amount":5000}' }]));
    const events = await client.responses.create({ model: 'm', input: 'x', stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of events) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_unreadable', type: 'countersign_upstream_error' });
    expect(seen).not.toContain('response.completed');
    expect(seen).not.toContain('response.output_item.done');
    expect(recorded()).toEqual([]);
  });

  it('responses: a function call started and never finished refuses the stream', async () => {
    const item = fc('fc_1', 'call_a', 'transfer', '{"amount":50}');
    let n = 0;
    const ev = (type: string, fields: Record<string, unknown>) => sseEvent({ type, sequence_number: n++, ...fields }, type);
    const { client, recorded } = await setup(() =>
      stream([ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '' } }), ev('response.function_call_arguments.delta', { output_index: 0, item_id: 'fc_1', delta: item.arguments })]),
    );
    const events = await client.responses.create({ model: 'm', input: 'x', stream: true });
    const error = await (async () => {
      for await (const _ of events);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unrecordable_tool_call' });
    expect(recorded()).toEqual([]);
  });

  it('chat: a tool-call delta that arrives after the finish chunk is recorded before [DONE] reaches the client', async () => {
    const { client, recorded } = await setup(() =>
      stream([
        chatChunk([delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'list_workflow_runs', arguments: '{}' } }] })]),
        chatChunk([delta({}, 'tool_calls')]),
        chatChunk([delta(toolDelta(1, { id: 'call_b', type: 'function' }, { name: 'rerun_workflow', arguments: '{"run":7}' }))]),
        sseEvent('[DONE]'),
      ]),
    );
    const runner = client.chat.completions.stream({ model: 'm', messages: USER });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(recorded().map((c) => c.id)).toEqual(['call_a', 'call_b']);
  });

  it('chat: a tool name sent again in a later delta is assembled as the openai client assembles it (not concatenated)', async () => {
    const { client, recorded } = await setup(() =>
      stream([
        chatChunk([delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'list_workflow_runs', arguments: '' } }] })]),
        chatChunk([delta(toolDelta(0, {}, { name: 'list_workflow_runs', arguments: '{"status":' }))]),
        chatChunk([delta(toolDelta(0, { id: '' }, { name: '', arguments: '"failure"}' }))]),
        chatChunk([delta({}, 'tool_calls')]),
        sseEvent('[DONE]'),
      ]),
    );
    const final = await client.chat.completions.stream({ model: 'm', messages: USER }).finalChatCompletion();
    const assembled = final.choices[0]?.message.tool_calls?.[0];
    expect(assembled?.type === 'function' ? assembled.function : undefined).toEqual({ name: 'list_workflow_runs', arguments: '{"status":"failure"}' });
    expect(recorded()).toEqual([{ id: 'call_a', name: 'list_workflow_runs', arguments: '{"status":"failure"}' }]);
  });

  it('chat: a tool name split into different fragments is refused as ambiguous (openai-node keeps the last, others append)', async () => {
    const { client, recorded } = await setup(() =>
      stream([
        chatChunk([delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'list_', arguments: '' } }] })]),
        chatChunk([delta(toolDelta(0, {}, { name: 'workflow_runs', arguments: '{}' }))]),
        chatChunk([delta({}, 'tool_calls')]),
        sseEvent('[DONE]'),
      ]),
    );
    const error = await client.chat.completions
      .stream({ model: 'm', messages: USER })
      .finalChatCompletion()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unrecordable_tool_call', param: 'choices[0].delta.tool_calls[0]' });
    expect(recorded()).toEqual([]);
  });

  it('chat, n: 2: a call refused in choices[1] refuses the answer with a typed per-call refusal naming each refused call', async () => {
    const { client, state } = await setup(() => ({
      contentType: 'application/json',
      chunks: [
        JSON.stringify({
          id: 'chatcmpl-n2',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [0, 1].map((index) => ({
            index,
            finish_reason: 'tool_calls',
            message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: index === 0 ? 'read' : 'wire_funds', arguments: '{}' } }] },
          })),
        }),
      ],
    }));
    state.answer = (call) =>
      call.name === 'wire_funds' ? { status: 'denied', reason: 'policy_deny', message: 'policy denies wire_funds', proposalId: 'p-1' } : { status: 'allowed', proposalId: `p-${call.id}`, callId: call.id, argsDigest: 'd' };
    const error = await client.chat.completions.create({ model: 'm', messages: USER, n: 2 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, code: 'policy_deny', param: 'call_1' });
    const body = (error as { error: { message: string; countersign: Record<string, unknown> } }).error;
    expect(body.countersign.refusals).toEqual([{ callId: 'call_1', toolName: 'wire_funds', status: 'denied', reason: 'policy_deny', message: 'policy denies wire_funds', proposalId: 'p-1' }]);
    expect(body.message).toContain('call_1 (wire_funds): policy_deny: policy denies wire_funds');
  });

  it('non-stream: the upstream body reaches the client byte for byte, invalid UTF-8 included', async () => {
    const text = Buffer.concat([Buffer.from('{"id":"chatcmpl-b","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"caf'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"},"finish_reason":"stop"}]}')]);
    const { proxy } = await setup(() => ({ contentType: 'application/json', chunks: [text] }));
    const response = await fetch(`${proxy.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'x-countersign-run': RUN, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: USER }),
    });
    expect(Buffer.from(await response.arrayBuffer()).equals(text)).toBe(true);
  });

  it('stream: events reach the client byte for byte, invalid UTF-8 included', async () => {
    const invalid = Buffer.concat([Buffer.from('data: {"id":"chatcmpl-s","choices":[{"index":0,"delta":{"content":"caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"},"finish_reason":null}]}\n\n')]);
    const chunks = [chatChunk([delta({ role: 'assistant', content: '' })]), invalid, chatChunk([delta({}, 'stop')]), sseEvent('[DONE]')];
    const { proxy } = await setup(() => ({ contentType: 'text/event-stream', chunks }));
    const response = await fetch(`${proxy.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'x-countersign-run': RUN, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: USER, stream: true }),
    });
    const expected = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    expect(Buffer.from(await response.arrayBuffer()).equals(expected)).toBe(true);
  });
});
