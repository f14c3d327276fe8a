import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedMessages, startScriptedModel } from '@countersign/proxy/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo, runCaptured } from './testing/capture-io.ts';
import { runCli } from './run-cli.ts';

const AGENT_TOKEN = 'proxy-cli-agent-token-0123456789abcdef0123';
const POLICY = 'version: 1\nrules:\n  - id: runs\n    tool: list_workflow_runs\n    verdict: allow\n';

describe('countersign proxy --config --auth', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-proxy-cli-')));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'auth.yaml'), 'agents:\n  - name: runtime\n    token: env:AGENT_TOKEN\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start without the upstream key in the environment', async () => {
    writeFileSync(join(dir, 'proxy.yaml'), 'upstream: { baseUrl: "http://127.0.0.1:9/v1" }\npolicy: ./policy.yaml\nlisten: { port: 0 }\n');
    const run = await runCaptured(['proxy', '--config', 'proxy.yaml', '--auth', 'auth.yaml'], { cwd: dir, env: { AGENT_TOKEN } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('OPENAI_API_KEY must hold the upstream API key');
  });

  it('refuses a semantic: section whose judge key is not in the environment, naming the variable (not a value)', async () => {
    writeFileSync(
      join(dir, 'proxy.yaml'),
      'upstream: { baseUrl: "http://127.0.0.1:9/v1" }\npolicy: ./policy.yaml\nlisten: { port: 0 }\nsemantic:\n  matcher: llm\n  extractor: llm\n  llm: { baseUrl: "http://127.0.0.1:9/v1", model: judge, apiKeyEnv: JUDGE_KEY }\n',
    );
    const run = await runCaptured(['proxy', '--config', 'proxy.yaml', '--auth', 'auth.yaml'], { cwd: dir, env: { AGENT_TOKEN, OPENAI_API_KEY: 'sk' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('semantic: semantic.llm.apiKeyEnv: JUDGE_KEY is not set');
  });

  it('serves the proxy on the store: the agent token in, the upstream key out, calls recorded', async () => {
    const model = await startScriptedModel(() => ({ toolCalls: [{ id: 'call_1', name: 'list_workflow_runs', arguments: '{}' }] }));
    writeFileSync(join(dir, 'proxy.yaml'), `upstream: { baseUrl: "${model.baseUrl}" }\npolicy: ./policy.yaml\nprincipal: alice\ntrustOnFirstUse: true\nlisten: { port: 0 }\n`);
    const stop = new AbortController();
    const captured = captureIo({ cwd: dir, env: { AGENT_TOKEN, OPENAI_API_KEY: 'sk-upstream' }, signal: stop.signal });
    const exited = runCli(['proxy', '--config', 'proxy.yaml', '--auth', 'auth.yaml'], captured.io);
    try {
      const baseUrl = await listeningAt(captured.stderr);
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'x-countersign-run': 'cli-run', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(200);
      expect(model.received[0]?.authorization).toBe('Bearer sk-upstream');
    } finally {
      stop.abort();
      expect(await exited).toBe(0);
      await model.close();
    }
  });

  it('with an anthropic: section, serves /v1/messages: its key from the environment as x-api-key, tool uses recorded, a denied one refused', async () => {
    const model = await startScriptedMessages((body) => ({
      toolUses: [{ id: 'toolu_1', name: body.model === 'deny' ? 'delete_repo' : 'list_workflow_runs', arguments: '{"status":"failure"}' }],
    }));
    writeFileSync(
      join(dir, 'proxy.yaml'),
      `upstream: { baseUrl: "http://127.0.0.1:9/v1" }\nanthropic: { baseUrl: "${model.baseUrl}" }\npolicy: ./policy.yaml\nprincipal: alice\ntrustOnFirstUse: true\nlisten: { port: 0 }\n`,
    );
    const refused = await runCaptured(['proxy', '--config', 'proxy.yaml', '--auth', 'auth.yaml'], { cwd: dir, env: { AGENT_TOKEN, OPENAI_API_KEY: 'sk' } });
    expect(refused.stderr).toContain('ANTHROPIC_API_KEY must hold the Anthropic API key');
    const stop = new AbortController();
    const captured = captureIo({ cwd: dir, env: { AGENT_TOKEN, OPENAI_API_KEY: 'sk', ANTHROPIC_API_KEY: 'sk-ant-upstream' }, signal: stop.signal });
    const exited = runCli(['proxy', '--config', 'proxy.yaml', '--auth', 'auth.yaml'], captured.io);
    try {
      const baseUrl = await listeningAt(captured.stderr);
      const ask = (modelName: string, run: string) =>
        fetch(`${baseUrl}/messages`, {
          method: 'POST',
          headers: { 'x-api-key': AGENT_TOKEN, 'x-countersign-run': run, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: modelName, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        });
      const allowed = await ask('m', 'cli-messages-1');
      expect(allowed.status).toBe(200);
      expect(model.received[0]?.headers['x-api-key']).toBe('sk-ant-upstream');
      // A relayed result for the recorded call that never ran is refused by the real gate (check 5).
      const relay = await fetch(`${baseUrl}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': AGENT_TOKEN, 'x-countersign-run': 'cli-messages-1', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'made up', is_error: true }] }] }),
      });
      expect(relay.status).toBe(403);
      expect(await relay.json()).toMatchObject({ type: 'error', error: { type: 'countersign_refused', code: 'not_executed' } });
      const denied = await ask('deny', 'cli-messages-2');
      expect(denied.status).toBe(403);
      expect(await denied.json()).toMatchObject({ type: 'error', error: { code: 'unclassified_tool', countersign: { refusals: [{ callId: 'toolu_1', toolName: 'delete_repo' }] } } });
      expect(model.received).toHaveLength(2);
    } finally {
      stop.abort();
      expect(await exited).toBe(0);
      await model.close();
    }
  });
});

/** The base URL `countersign proxy` logs once it listens (fails the test if it never does). */
async function listeningAt(stderr: () => string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const baseUrl = /base URL (http:\/\/\S+)/.exec(stderr())?.[1];
    if (baseUrl !== undefined) return baseUrl;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the proxy never listened: ${stderr()}`);
}
