import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedChatServer, startScriptedChatServer } from '@countersign/semantic/llm/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, memoryUpstreamYaml } from './testing/memory-upstream.ts';

// `countersign mcp` with a semantic: section: the CLI builds the LLM matcher (against a scripted endpoint) into the embedded gate.
const MAIN = join(import.meta.dirname, 'main.ts');

const refusalOf = (result: CallToolResult) => (result.isError === true ? (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign : undefined);

describe('countersign mcp --config with semantic: (intent check)', () => {
  let dir: string;
  let judge: ScriptedChatServer;
  let client: Client;

  beforeAll(async () => {
    // The judge: reading the graph serves a task about the graph, nothing else.
    judge = await startScriptedChatServer((body) => {
      const data = JSON.parse((body.messages as { content: string }[])[1]!.content) as { task: string };
      const serves = data.task.includes('graph');
      return { content: JSON.stringify({ serves_task: serves, confidence: 0.9, reason: '' }) };
    });
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-intent-')));
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\nrules:\n  - { id: reads, tool: read_graph, verdict: allow }\n');
    writeFileSync(
      join(dir, 'gateway.yaml'),
      [
        ...memoryUpstreamYaml(dir),
        'policy: policy.yaml',
        'principal: user-1',
        'trustOnFirstUse: true',
        'semantic:',
        '  matcher: llm',
        `  llm: { baseUrl: ${JSON.stringify(judge.baseUrl)}, model: judge, apiKeyEnv: JUDGE_KEY }`,
      ].join('\n'),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'],
      cwd: dir,
      env: childEnv({ JUDGE_KEY: 'sk-judge' }),
      stderr: 'pipe',
    });
    client = new Client({ name: 'desktop-client', version: '1.0.0' });
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await judge?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a call whose task it serves runs; the same call under another task, or with no task, is refused intent_mismatch', async () => {
    const call = async (task?: string) =>
      (await client.callTool({ name: 'read_graph', arguments: {}, ...(task === undefined ? {} : { _meta: { 'countersign/task': task } }) })) as CallToolResult;
    const served = await call('Show me the knowledge graph');
    expect(refusalOf(served)).toBeUndefined();
    expect(JSON.stringify(served.content)).toContain('entities');
    expect(refusalOf(await call('Summarize the failing tests'))).toMatchObject({ reason: 'intent_mismatch' });
    expect(refusalOf(await call())).toMatchObject({ reason: 'intent_mismatch' });
    // The key came from the env var named in the file.
    expect(judge.requests[0]?.authorization).toBe('Bearer sk-judge');
  });
});
