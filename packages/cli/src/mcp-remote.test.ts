import { spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { loadPolicy } from '@countersign/core/policy';
import { createAdaptorServer } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '@countersign/server';
import { AGENT_TOKEN, makeServerFixture, OSCAR_TOKEN } from '@countersign/server/test-kit';
import { childEnv, memoryUpstreamYaml } from './testing/memory-upstream.ts';

// `countersign mcp` with `approvalService`: the gateway keeps no store; a Countersign server decides.
const MAIN = join(import.meta.dirname, 'main.ts');
const POLICY = `
version: 1
rules:
  - id: reads
    tools: [read_graph]
    verdict: allow
  - id: writes
    tool: create_entities
    verdict: approve
    approval:
      approvers: { roles: [ops] }
      ttlSeconds: 600
`;

function refusalOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result.isError === true ? (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign : undefined;
}

function writeConfig(dir: string, url: string): void {
  writeFileSync(
    join(dir, 'gateway.yaml'),
    [
      ...memoryUpstreamYaml(dir),
      'principal: user:42',
      'approvalService:',
      `  url: ${url}`,
      '  tokenEnv: GATEWAY_AGENT_TOKEN',
    ].join('\n'),
  );
}

describe('countersign mcp with approvalService (a Countersign server over HTTP)', () => {
  const fixture = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml'), definitions: new MemoryDefinitionStore(), tools: {}, trustOnFirstUse: true });
  const http = createAdaptorServer({ fetch: fixture.app.fetch }) as Server;
  let url: string;
  let dir: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    url = `http://127.0.0.1:${await listen(http, 0, '127.0.0.1')}`;
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-remote-')));
    writeConfig(dir, url);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'],
      cwd: dir,
      env: childEnv({ GATEWAY_AGENT_TOKEN: AGENT_TOKEN }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: 'desktop-client', version: '1.0.0' });
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await fixture.close();
    await closeServer(http, 100);
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the upstream tools on the server, and an approval decided there lets the identical retry run once', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_graph', 'create_entities']));
    expect(stderr).toContain(`approval service ${url}`);
    const args = { entities: [{ name: 'approved-entity', entityType: 't', observations: [] }] };
    const first = refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult);
    expect(first).toMatchObject({ reason: 'approval_required', approvalUrl: `${url}/requests/${String(first?.requestId)}` });
    const decided = await fixture.send('POST', '/api/v1/decisions', OSCAR_TOKEN, { requestId: first?.requestId, decision: 'approve' });
    expect(decided.status).toBe(200);
    const ran = (await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult;
    expect(ran.isError).not.toBe(true);
    expect(JSON.stringify(ran)).toContain('approved-entity');
    expect(refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult)).toMatchObject({ reason: 'already_consumed' });
  });

  it('refuses to start without the agent token in the environment', () => {
    const bare = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-remote-')));
    try {
      writeConfig(bare, url);
      const run = spawnSync(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'], { cwd: bare, env: childEnv(), encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('GATEWAY_AGENT_TOKEN must hold');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  }, 20_000);
});
