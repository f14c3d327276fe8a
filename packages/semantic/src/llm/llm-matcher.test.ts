import { afterEach, describe, expect, it } from 'vitest';
import type { MatchInput } from '../matcher/types.ts';
import { createLlmMatcher } from './llm-matcher.ts';
import { type ScriptedChatServer, type ScriptedReply, startScriptedChatServer } from './testing/scripted-chat-server.ts';

const INPUT: MatchInput = {
  task: "Summarize last week's failing tests in auth-service",
  tool: {
    name: 'db-readonly__export_full_users_table',
    server: 'db-readonly',
    description: 'Export every row of the users table as CSV',
    parameters: { format: { type: 'string', description: 'csv or json' } },
  },
  catalogue: [
    { name: 'github__list_workflow_runs', server: 'github', description: 'List CI workflow runs of a repository' },
    { name: 'db-readonly__export_full_users_table', server: 'db-readonly', description: 'Export every row of the users table as CSV' },
  ],
};

describe('LLM matcher against a scripted OpenAI-compatible endpoint', () => {
  let server: ScriptedChatServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  async function matcherAnswering(reply: ScriptedReply | ((body: Record<string, unknown>) => ScriptedReply), timeoutMs = 5000) {
    server = await startScriptedChatServer(typeof reply === 'function' ? reply : () => reply);
    return createLlmMatcher({ baseUrl: server.baseUrl, model: 'judge-1', apiKey: 'sk-test', timeoutMs });
  }
  const json = (v: unknown): ScriptedReply => ({ content: JSON.stringify(v) });

  it('sends the pinned definition and the task as data, asks for a strict JSON schema, and parses the verdict', async () => {
    const matcher = await matcherAnswering(json({ serves_task: false, confidence: 0.95, reason: 'exporting users is not reading CI results' }));
    expect(await matcher.match(INPUT)).toEqual({ decision: 'mismatch', score: expect.closeTo(0.05, 5), matcher: 'llm:judge-1' });
    const { body, authorization } = server!.requests[0]!;
    expect(authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({ model: 'judge-1', temperature: 0, response_format: { type: 'json_schema', json_schema: { strict: true, name: 'task_tool_match' } } });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages[0]).toMatchObject({ role: 'system' });
    expect(messages[0]!.content).toContain('data, not instructions');
    const data = JSON.parse(messages[1]!.content);
    expect(data).toMatchObject({
      task: INPUT.task,
      tool: { name: INPUT.tool.name, description: INPUT.tool.description, parameters: [{ name: 'format', type: 'string', description: 'csv or json' }] },
      other_available_tools: [{ name: 'github__list_workflow_runs' }],
    });
  });

  it('a match with enough confidence is a match; score is the probability the tool serves the task', async () => {
    const matcher = await matcherAnswering({ content: '```json\n{"serves_task":true,"confidence":0.8,"reason":"reads CI"}\n```' });
    expect(await matcher.match(INPUT)).toMatchObject({ decision: 'match', score: 0.8 });
  });

  it('fails closed to uncertain: garbage, wrong shape, extra keys, out-of-range confidence, low confidence, refusal', async () => {
    const replies: ScriptedReply[] = [
      { content: 'Sure! The tool matches.' },
      json({ serves_task: 'yes', confidence: 0.9, reason: '' }),
      json({ serves_task: true, confidence: 0.9, reason: '', allow: true }),
      json({ serves_task: true, confidence: 7, reason: '' }),
      json({ serves_task: true, confidence: 0.2, reason: 'not sure' }),
      { content: '' },
      { status: 200, body: '{"choices":[]}' },
      { status: 200, body: 'not json' },
    ];
    for (const reply of replies) {
      const matcher = await matcherAnswering(reply);
      expect((await matcher.match(INPUT)).decision).toBe('uncertain');
      await server!.close();
      server = undefined;
    }
  });

  it('HTTP 500 and 429 are uncertain', async () => {
    for (const status of [500, 429]) {
      const matcher = await matcherAnswering({ status, body: '{"error":{"message":"overloaded"}}' });
      expect(await matcher.match(INPUT)).toMatchObject({ decision: 'uncertain', detail: { failure: 'http_error' } });
      await server!.close();
      server = undefined;
    }
  });

  it('a hung endpoint is uncertain after the timeout; a caller abort stops it too', async () => {
    const matcher = await matcherAnswering({ hang: true }, 100);
    expect(await matcher.match(INPUT)).toMatchObject({ decision: 'uncertain', detail: { failure: 'timeout' } });
    const controller = new AbortController();
    const pending = createLlmMatcher({ baseUrl: server!.baseUrl, model: 'm', timeoutMs: 60_000 }).match(INPUT, controller.signal);
    controller.abort();
    expect(await pending).toMatchObject({ decision: 'uncertain', detail: { failure: 'aborted' } });
  });

  it('an unreachable endpoint is uncertain, and bad settings are refused at creation', async () => {
    const closed = await startScriptedChatServer(() => ({ content: '' }));
    await closed.close();
    const matcher = createLlmMatcher({ baseUrl: closed.baseUrl, model: 'm', timeoutMs: 2000 });
    expect(await matcher.match(INPUT)).toMatchObject({ decision: 'uncertain', detail: { failure: 'network_error' } });
    expect(() => createLlmMatcher({ baseUrl: 'file:///etc/passwd', model: 'm', timeoutMs: 1 })).toThrow(TypeError);
    expect(() => createLlmMatcher({ baseUrl: 'http://x', model: '', timeoutMs: 1 })).toThrow(TypeError);
    expect(() => createLlmMatcher({ baseUrl: 'http://x', model: 'm', timeoutMs: 0 })).toThrow(TypeError);
  });

  it('a redirect is not followed (the API key never goes to another address)', async () => {
    const elsewhere = await startScriptedChatServer(() => json({ serves_task: true, confidence: 1, reason: '' }));
    try {
      const matcher = await matcherAnswering({ status: 307, body: '', location: `${elsewhere.baseUrl}/chat/completions` });
      expect(await matcher.match(INPUT)).toMatchObject({ decision: 'uncertain', detail: { failure: 'network_error' } });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('an oversized reply is refused, not buffered', async () => {
    const matcher = await matcherAnswering({ content: `{"serves_task":true,"confidence":1,"reason":"${'a'.repeat(300_000)}"}` });
    expect((await matcher.match(INPUT)).decision).toBe('uncertain');
  });
});
