import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

describe('through the gateway: a destructive tool allowed only by a pattern waits for approval', () => {
  it('`fs__*: allow` runs the read-only tool but asks approval for the one marked destructiveHint', async () => {
    const server = new McpServer({ name: 'fs', version: '1.0.0' });
    const ran: string[] = [];
    const tool = (name: string, annotations: Record<string, boolean>) =>
      server.registerTool(name, { description: name, inputSchema: { path: z.string() }, annotations }, async ({ path }) => {
        ran.push(`${name}:${path}`);
        return { content: [{ type: 'text', text: 'done' }] };
      });
    tool('read', { readOnlyHint: true });
    tool('wipe', { destructiveHint: true });
    const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const gateway = await createGateway({
      upstreams: [
        { name: 'fs', transport: gatewaySide },
        { name: 'other', transport: (await emptyServer()).transport },
      ],
      gate: makeTestGate('version: 1\nrules:\n  - { id: fs, tool: "fs__*", verdict: allow }\n', true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
      approvalUrl: 'https://approvals.example',
    });
    const client = await connectClient(gateway);
    try {
      expect(textOf(await call(client, 'fs__read', { path: '/a' }))).toBe('done');
      const refusal = refusalOf(await call(client, 'fs__wipe', { path: '/' }));
      expect(refusal).toMatchObject({ reason: 'approval_required', toolName: 'fs__wipe' });
      expect(String(refusal?.approvalUrl)).toMatch(/^https:\/\/approvals\.example\/requests\//);
      expect(ran).toEqual(['read:/a']);
    } finally {
      await client.close();
      await gateway.close();
      await server.close();
    }
  });
});

async function emptyServer() {
  const server = new McpServer({ name: 'other', version: '1.0.0' });
  server.registerTool('noop', { description: 'noop' }, async () => ({ content: [] }));
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { transport: gatewaySide };
}
