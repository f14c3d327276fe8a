import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { runCaptured } from './testing/capture-io.ts';
import { serveInProcess } from './testing/serve-in-process.ts';
import { memoryUpstreamYaml } from './testing/memory-upstream.ts';
import { withCredentials } from './testing/local-credentials.ts';

// `countersign serve --mcp gateway.yaml`: the gateway on the service's own port and gate.
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
      approvers: { roles: [admin] }
      ttlSeconds: 600
`;

const root = mkdtempSync(join(tmpdir(), 'countersign-serve-mcp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeFiles(dir: string, gateway: string[]): void {
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  writeFileSync(
    join(dir, 'gateway.yaml'),
    [
      ...memoryUpstreamYaml(dir),
      ...gateway,
    ].join('\n'),
  );
}

function refusalOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result.isError === true ? (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign : undefined;
}

describe('countersign serve --mcp', () => {
  it('serves the gateway at /mcp with the agent token, on the same gate as the approval pages', async () => {
    const cwd = mkdtempSync(join(root, 'case-'));
    writeFiles(cwd, ['principal: user:42', 'agent: agent', 'approvalUrl: http://approvals.test']);
    const server = await serveInProcess(['--json', '--policy', 'policy.yaml', '--trust-on-first-use', '--mcp', 'gateway.yaml'], { cwd });
    const listening = withCredentials(JSON.parse(server.stdout().split('\n').find((line) => line.includes('"listening"'))!));
    const endpoint = `${server.url}/mcp`;
    const client = new Client({ name: 'remote-client', version: '1.0.0' });
    try {
      expect(listening.mcp).toEqual({ url: endpoint, upstreams: ['memory'], agent: 'agent' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${listening.agent.token}` } } }));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_graph', 'create_entities']));
      const read = (await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect(read.isError).not.toBe(true);

      const args = { entities: [{ name: 'approved-entity', entityType: 't', observations: [] }] };
      const first = refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult);
      expect(first).toMatchObject({ reason: 'approval_required', approvalUrl: `http://approvals.test/requests/${String(first?.requestId)}` });
      // The same service's approver decides it: one gate, one store.
      const approver = apiClient(server.url, listening.approver.token);
      expect((await approver.post('/api/v1/decisions', { requestId: first?.requestId, decision: 'approve' })).status).toBe(200);
      const ran = (await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult;
      expect(JSON.stringify(ran)).toContain('approved-entity');
      expect(refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult)).toMatchObject({ reason: 'already_consumed' });

      // A 2026-07-28 client on the same endpoint: the approve call comes back as input_required (URL
      // elicitation to the page); approved there, the client's automatic retry runs it.
      const modern = new ModernClient({ name: 'modern', version: '2.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
      modern.setRequestHandler('elicitation/create', async (request) => {
        const requestId = decodeURIComponent(String((request.params as { url?: string }).url).split('/requests/')[1] ?? '');
        expect((await approver.post('/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
        return { action: 'accept' };
      });
      await modern.connect(new ModernHttpTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${listening.agent.token}` } } }));
      const modernArgs = { entities: [{ name: 'modern-entity', entityType: 't', observations: [] }] };
      expect(JSON.stringify(await modern.callTool({ name: 'create_entities', arguments: modernArgs }))).toContain('modern-entity');
      await modern.close();

      // Refused before any MCP: no token, a person's token, and a browser page of another origin.
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      const post = (headers: Record<string, string>) =>
        fetch(endpoint, { method: 'POST', body: init, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: `Bearer ${listening.approver.token}` })).status).toBe(403);
      expect((await post({ authorization: `Bearer ${listening.agent.token}`, origin: 'https://evil.example' })).status).toBe(403);
      expect((await post({ authorization: `Bearer ${listening.agent.token}`, 'mcp-session-id': 'made-up' })).status).toBe(404);
    } finally {
      await client.close();
      expect(await server.stop()).toBe(0);
    }
  }, 30_000);

  it('refuses a gateway file that names its own policy, store or port, or an agent the service does not have', async () => {
    const cwd = mkdtempSync(join(root, 'case-'));
    writeFiles(cwd, ['principal: user:42', 'agent: agent', 'policy: policy.yaml', 'store: { sqlite: other.sqlite }', 'http: { port: 9000 }']);
    const run = await runCaptured(['serve', '--port', '0', '--mcp', 'gateway.yaml'], { cwd });
    expect(run.code).toBe(2);
    for (const key of ['policy', 'store', 'http']) expect(run.stderr).toContain(`${key}: not used when \`countersign serve\` mounts the gateway`);

    writeFiles(cwd, ['principal: user:42', 'agent: someone-else']);
    const stranger = await runCaptured(['serve', '--port', '0', '--mcp', 'gateway.yaml'], { cwd });
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toContain('"someone-else" is not an agent of this service');
    const badPath = await runCaptured(['serve', '--port', '0', '--mcp', 'gateway.yaml', '--mcp-path', '/api/mcp'], { cwd });
    expect(badPath.code).toBe(2);
  }, 30_000);
});
