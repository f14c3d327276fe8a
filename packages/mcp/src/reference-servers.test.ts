import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

// The reference servers from npm, started with this node (no npx, no network).
const require = createRequire(import.meta.url);
const FS_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_BIN = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

const POLICY = `
version: 1
rules:
  - id: reads
    tools: ["fs__read_*", "fs__list_*", "fs__get_file_info", "memory__read_graph", "memory__search_nodes"]
    verdict: allow
  - id: writes
    tool: fs__write_file
    verdict: approve
    approval:
      approvers: { roles: [ops] }
      ttlSeconds: 600
  - id: no-moves
    tool: fs__move_file
    verdict: deny
`;
const OPS = { id: 'olga', roles: ['ops'] };

describe('the gateway in front of @modelcontextprotocol/server-filesystem and server-memory (stdio)', () => {
  let dir: string;
  let gate: ReturnType<typeof makeTestGate>;
  let gateway: Gateway;
  let client: Client;
  let waiting: Gateway;

  const upstreams = () => [
    { name: 'fs', command: process.execPath, args: [FS_BIN, dir] },
    { name: 'memory', command: process.execPath, args: [MEMORY_BIN], env: { MEMORY_FILE_PATH: join(dir, '..', `${dir.split('/').pop()}-memory.jsonl`) } },
  ];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-')));
    writeFileSync(join(dir, 'notes.txt'), 'hello from the upstream\n');
    gate = makeTestGate(POLICY, true);
    const agent = { id: 'mcp-gateway' };
    gateway = await createGateway({ upstreams: upstreams(), gate, agent, principal: 'user-1', approvalUrl: 'https://approvals.example' });
    client = await connectClient(gateway);
    // A second gateway (same gate, same agent) that waits for decisions.
    waiting = await createGateway({ upstreams: upstreams(), gate, agent, principal: 'user-1', approvalWaitMs: 5000, sessionId: 'waiting' });
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await waiting?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the same tools as the servers themselves, namespaced, with exactly their pinned fields', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FS_BIN, dir], stderr: 'ignore' }));
    const all = (await direct.listTools()).tools.map((tool) => ({ ...pinned(tool), name: `fs__${tool.name}` }));
    await direct.close();
    // Every tool policy lets user-1 call with some arguments, and only those.
    const visible = await Promise.all(all.map((tool) => gate.toolVisibility(tool.name, 'user-1')));
    const expected = all.filter((_, i) => visible[i]?.visible === true);
    const served = (await client.listTools()).tools;
    const fsTools = served.filter((t) => t.name.startsWith('fs__'));
    expect(fsTools).toEqual(expected);
    expect(fsTools.map((t) => t.name)).toContain('fs__read_text_file');
    expect(fsTools.map((t) => t.name)).toContain('fs__write_file');
    // Denied (move_file) and unclassified (create_directory) tools are hidden.
    expect(all.map((t) => t.name)).toEqual(expect.arrayContaining(['fs__move_file', 'fs__create_directory']));
    expect(fsTools.map((t) => t.name)).not.toContain('fs__move_file');
    expect(fsTools.map((t) => t.name)).not.toContain('fs__create_directory');
    expect(served.map((t) => t.name)).toContain('memory__read_graph');
  });

  it('reads go through, with the upstream result as it came, and the result is recorded', async () => {
    const result = await call(client, 'fs__read_text_file', { path: join(dir, 'notes.txt') });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe('hello from the upstream\n');
    const again = await call(client, 'fs__read_text_file', { path: join(dir, 'notes.txt') });
    expect(textOf(again)).toBe('hello from the upstream\n');
    // Each result is recorded once its answer has left (the loop's next turn).
    await vi.waitFor(async () => {
      const records = await gate.auditLog.read();
      expect(records.filter((r) => r.type === 'result' && r.toolName === 'fs__read_text_file')).toHaveLength(2);
    });
    const graph = await call(client, 'memory__read_graph', {});
    expect(graph.isError).not.toBe(true);
  });

  it('a denied tool is refused with a typed reason and never reaches the upstream', async () => {
    const result = await call(client, 'fs__move_file', { source: join(dir, 'notes.txt'), destination: join(dir, 'moved.txt') });
    expect(refusalOf(result)).toMatchObject({ reason: 'policy_deny', toolName: 'fs__move_file' });
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true);
    expect(existsSync(join(dir, 'moved.txt'))).toBe(false);
  });

  it('a tool no rule names is refused (deny by default)', async () => {
    const result = await call(client, 'fs__create_directory', { path: join(dir, 'sub') });
    expect(refusalOf(result)).toMatchObject({ reason: 'unclassified_tool' });
    expect(existsSync(join(dir, 'sub'))).toBe(false);
  });

  it('write_file runs only after approval, with exactly the approved arguments, once', async () => {
    const target = join(dir, 'approved.txt');
    const args = { path: target, content: 'approved content' };
    const first = await call(client, 'fs__write_file', args);
    const refusal = refusalOf(first);
    expect(refusal).toMatchObject({ reason: 'approval_required' });
    expect(refusal?.approvalUrl).toBe(`https://approvals.example/requests/${String(refusal?.requestId)}`);
    expect(existsSync(target)).toBe(false);

    // Other arguments are another call: they do not ride on this approval.
    const other = await call(client, 'fs__write_file', { path: target, content: 'something else' });
    expect(refusalOf(other)).toMatchObject({ reason: 'approval_required' });
    expect(refusalOf(other)?.requestId).not.toBe(refusal?.requestId);

    expect((await gate.approvals.decide(OPS, { requestId: String(refusal?.requestId), decision: 'approve' })).ok).toBe(true);
    expect(existsSync(target)).toBe(false); // approving runs nothing by itself
    // The identical retry (keys in another order) is the approved call.
    const retried = await call(client, 'fs__write_file', { content: 'approved content', path: target });
    expect(retried.isError).not.toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('approved content');

    const replay = await call(client, 'fs__write_file', args);
    expect(refusalOf(replay)).toMatchObject({ reason: 'already_consumed' });
    const stillOther = await call(client, 'fs__write_file', { path: target, content: 'something else' });
    expect(refusalOf(stillOther)).toMatchObject({ reason: 'approval_required' });
    expect(readFileSync(target, 'utf8')).toBe('approved content');
  });

  it('a call waits for the decision when the gateway is configured to, then runs', async () => {
    const waitingClient = await connectClient(waiting);
    const target = join(dir, 'waited.txt');
    const pending = call(waitingClient, 'fs__write_file', { path: target, content: 'waited' });
    let requestId: string | undefined;
    for (let i = 0; i < 100 && requestId === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const list = await gate.approvals.listFor(OPS, 'pending');
      requestId = list.ok ? list.views.find((v) => v.proposal.toolName === 'fs__write_file' && v.proposal.canonicalArgs.includes('waited'))?.request.requestId : undefined;
    }
    expect(requestId).toBeDefined();
    await gate.approvals.decide(OPS, { requestId: requestId!, decision: 'approve' });
    const result = await pending;
    expect(result.isError).not.toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('waited');
    await waitingClient.close();
  });
});

/** What the gateway serves of a tool: the fields check 1 pins (not `execution`, `icons` or `_meta`). */
function pinned(tool: Tool): Tool {
  const { execution: _execution, icons: _icons, _meta: _ignored, ...rest } = tool;
  return rest as Tool;
}
