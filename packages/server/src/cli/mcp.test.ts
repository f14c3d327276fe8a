import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `countersign mcp` as a desktop MCP client runs it: a child process spoken to over stdio.
const MAIN = join(import.meta.dirname, 'main.ts');
const MEMORY_BIN = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

const POLICY = `
version: 1
rules:
  - id: reads
    tools: [read_graph, search_nodes, open_nodes]
    verdict: allow
  - id: writes
    tool: create_entities
    verdict: approve
    approval:
      approvers: { roles: [ops] }
      ttlSeconds: 600
  - id: no-deletes
    tool: delete_entities
    verdict: deny
`;

function childEnv(): Record<string, string> {
  // The gateway's own secrets come from the config's store (master.key next to it), not the test's env.
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('COUNTERSIGN_')));
}

function refusalOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result.isError === true ? (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign : undefined;
}

describe('countersign mcp --config (stdio front)', () => {
  let dir: string;
  let client: Client;
  let stderr = '';
  const transportErrors: Error[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-cli-')));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(
      join(dir, 'gateway.yaml'),
      [
        'upstreams:',
        '  - name: memory',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(MEMORY_BIN)}]`,
        `    env: { MEMORY_FILE_PATH: ${JSON.stringify(join(dir, 'memory.jsonl'))} }`,
        'policy: policy.yaml',
        'principal: user-1',
        'trustOnFirstUse: true',
        'approvalUrl: http://127.0.0.1:8787',
      ].join('\n'),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'],
      cwd: dir,
      env: childEnv(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: 'desktop-client', version: '1.0.0' });
    client.onerror = (error) => transportErrors.push(error);
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the upstream tools that the policy lets through, and logs only to stderr', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_graph', 'create_entities', 'search_nodes']));
    expect(stderr).toContain('countersign mcp: serving memory on stdio');
    // The default store, relative to the config file: the same one `countersign serve` would open there.
    expect(stderr).toContain(join(dir, '.countersign', 'countersign.sqlite'));
    expect(transportErrors).toEqual([]);
  });

  it('runs an allowed call, refuses a denied one, and answers an approve call with its approval link', async () => {
    const read = (await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
    expect(read.isError).not.toBe(true);
    expect(JSON.stringify(read.content)).toContain('entities');

    const denied = (await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['x'] } })) as CallToolResult;
    expect(refusalOf(denied)).toMatchObject({ reason: 'policy_deny' });

    const write = (await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'a', entityType: 't', observations: [] }] } })) as CallToolResult;
    const refusal = refusalOf(write);
    expect(refusal).toMatchObject({ reason: 'approval_required' });
    expect(String(refusal?.approvalUrl)).toMatch(/^http:\/\/127\.0\.0\.1:8787\/requests\//);
    expect(transportErrors).toEqual([]);
  });
});

describe('countersign mcp: a bad configuration', () => {
  it('is refused before anything starts, with every problem on stderr and nothing on stdout', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-bad-')));
    try {
      writeFileSync(join(dir, 'gateway.yaml'), 'upstreams:\n  - name: "a_b"\n    command: x\nprincipal: ""\nsurprise: 1\n');
      const run = spawnSync(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'], { cwd: dir, env: childEnv(), encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('invalid gateway configuration');
      expect(run.stderr).toContain('upstreams[0].name');
      expect(run.stderr).toContain('policy');
      expect(run.stderr).toContain('principal');
      expect(run.stderr).toContain('surprise');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
