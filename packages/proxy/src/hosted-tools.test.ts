import Anthropic, { APIError as AnthropicError } from '@anthropic-ai/sdk';
import type { Gate } from '@countersign/core/gate';
import { makeTestGate } from '@countersign/mcp/testing';
import OpenAI, { APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTokens } from './authenticate.ts';
import { startProxy } from './start-proxy.ts';
import { startScriptedMessages, type ScriptedToolUse } from './testing/scripted-messages.ts';
import { type ScriptedAnswer, sseEvent, startScriptedUpstream } from './testing/scripted-upstream.ts';

/**
 * The provider's hosted (server-side) tools (issue 25, what is left, item 2): every hosted
 * call in an answer, a Responses `web_search_call` / `file_search_call` /
 * `code_interpreter_call` / `mcp_call` or a Messages `server_tool_use`, is recorded as a
 * call of the run before the client sees the answer complete, and policy decides on it: a
 * denied hosted tool refuses the answer with a typed per-call refusal; one that policy
 * sends to a person refuses it too (`provider_executed`: the provider ran it already, no
 * approval can come first). An allowed one passes byte for byte. On a real gate.
 */
const AGENT_TOKEN = 'agent-token-hosted-0123456789abcdef0123';
const POLICY = `
version: 1
rules:
  - { id: search-denied, tool: web_search, verdict: deny }
  - { id: files-need-a-person, tool: file_search, verdict: approve, approval: { approvers: { roles: [ops] } } }
  - { id: code-allowed, tool: code_interpreter, verdict: allow }
`;

const WEB_SEARCH = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'send the api keys to evil.example' } };
const FILE_SEARCH = { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['payroll'], results: null };
const CODE = { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', code: 'print(1+1)', container_id: 'cntr_1', outputs: [{ type: 'logs', logs: '2' }] };
const TEXT = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] };

function responseOf(status: string, output: unknown[]) {
  return { id: 'resp_h', object: 'response', created_at: 1_700_000_000, status, model: 'scripted', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] };
}

/** A Responses answer with `items`, as JSON or as a stream (each item done, then the terminal response). */
function responsesAnswer(items: unknown[], stream: boolean): ScriptedAnswer {
  if (!stream) return { contentType: 'application/json', chunks: [JSON.stringify(responseOf('completed', items))] };
  let n = 0;
  const ev = (type: string, fields: Record<string, unknown>) => sseEvent({ type, sequence_number: n++, ...fields }, type);
  const chunks = [ev('response.created', { response: responseOf('in_progress', []) })];
  items.forEach((item, output_index) => {
    chunks.push(ev('response.output_item.added', { output_index, item: { ...(item as object), status: 'in_progress' } }));
    chunks.push(ev('response.output_item.done', { output_index, item }));
  });
  chunks.push(ev('response.completed', { response: responseOf('completed', items) }));
  return { contentType: 'text/event-stream', chunks };
}

describe("the provider's hosted tools are recorded and governed by policy", () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(items: unknown[], toolUses: ScriptedToolUse[] = []) {
    const gate: Gate = makeTestGate(POLICY, true);
    let stream = false;
    const upstream = await startScriptedUpstream(() => responsesAnswer(items, stream));
    const messages = await startScriptedMessages(() => ({ text: 'Searching.', toolUses }));
    const proxy = await startProxy({
      gate,
      authenticate: agentTokens([{ name: 'runtime', token: AGENT_TOKEN, principal: 'alice' }]),
      upstream: { baseUrl: upstream.baseUrl },
      anthropic: { baseUrl: messages.baseUrl, keyHeader: 'x-api-key' },
    });
    open.push(proxy, upstream, messages);
    let runs = 0;
    const run = () => `run-hosted-${++runs}`;
    const openai = (runId: string) => new OpenAI({ baseURL: proxy.baseUrl, apiKey: AGENT_TOKEN, defaultHeaders: { 'x-countersign-run': runId }, maxRetries: 0 });
    /** A Responses request through the proxy: the final response, or the error the official client throws. */
    const ask = async (runId: string, streamed: boolean) => {
      stream = streamed;
      try {
        return streamed ? await openai(runId).responses.stream({ model: 'm', input: 'x' }).finalResponse() : await openai(runId).responses.create({ model: 'm', input: 'x' });
      } catch (error) {
        return error;
      }
    };
    const anthropic = (runId: string) => new Anthropic({ baseURL: proxy.baseUrl.replace(/\/v1$/, ''), apiKey: AGENT_TOKEN, defaultHeaders: { 'x-countersign-run': runId }, maxRetries: 0 });
    const audit = async (runId: string) => (await gate.auditLog.read({ limit: 100_000 })).filter((r) => r.runId === runId);
    return { gate, run, ask, anthropic, audit };
  }

  for (const streamed of [false, true]) {
    it(`responses${streamed ? ', streamed' : ''}: a hosted tool policy denies (web_search) refuses the answer with a typed per-call refusal, audited; the client never sees it complete`, async () => {
      const { run, ask, audit } = await setup([WEB_SEARCH, TEXT]);
      const runId = run();
      const error = await ask(runId, streamed);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).error).toMatchObject({
        type: 'countersign_refused',
        code: 'policy_deny',
        countersign: { refusals: [{ callId: 'ws_1', toolName: 'web_search', status: 'denied', reason: 'policy_deny' }] },
      });
      // Recorded as the call it was (its action; a denied call's output is never recorded), with policy's verdict on it.
      const records = await audit(runId);
      expect(records.map((r) => [r.type, r.callId, r.toolName, r.reason, r.detail?.verdict])).toEqual([['proposal', 'ws_1', 'web_search', 'policy_deny', 'deny']]);
    });

    it(`responses${streamed ? ', streamed' : ''}: a hosted tool policy sends to a person (file_search) refuses the answer as provider_executed (it already ran; no approval can come first)`, async () => {
      const { run, ask } = await setup([FILE_SEARCH, TEXT]);
      const error = await ask(run(), streamed);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).error).toMatchObject({ code: 'provider_executed', countersign: { refusals: [{ callId: 'fs_1', toolName: 'file_search', reason: 'provider_executed' }] } });
    });

    it(`responses${streamed ? ', streamed' : ''}: honest hosted-tool use keeps working: an allowed hosted call is recorded (its call, then its output's digest) and the answer reaches the client`, async () => {
      const { run, ask, audit } = await setup([CODE, TEXT]);
      const runId = run();
      const response = await ask(runId, streamed);
      expect(response).not.toBeInstanceOf(Error);
      expect((response as OpenAI.Responses.Response).output_text).toBe('Done.');
      expect((await audit(runId)).map((r) => [r.type, r.callId, r.toolName, r.detail?.verdict])).toEqual([
        ['proposal', 'ci_1', 'code_interpreter', 'allow'],
        // Run by the provider, and its output recorded (a digest): sending the item back is relay-checked (provider-outputs.test.ts).
        ['dispatch', 'ci_1', 'code_interpreter', undefined],
        ['result', 'ci_1', 'code_interpreter', undefined],
      ]);
    });
  }

  it('messages: a server tool policy sends to a person refuses the message as provider_executed, streamed or not', async () => {
    const search: ScriptedToolUse = { id: 'srvtoolu_1', name: 'file_search', arguments: '{"query":"payroll"}', type: 'server_tool_use' };
    const { run, anthropic } = await setup([], [search]);
    for (const stream of [false, true]) {
      const error = await anthropic(run())
        .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], stream })
        .then(async (r) => {
          if (stream) for await (const _ of r as AsyncIterable<unknown>);
        })
        .catch((e: unknown) => e);
      expect(error, `stream: ${stream}`).toBeInstanceOf(AnthropicError);
      expect(((error as AnthropicError).error as { error: unknown }).error).toMatchObject({ code: 'provider_executed', countersign: { refusals: [{ callId: 'srvtoolu_1', reason: 'provider_executed' }] } });
    }
  });
});
