import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Loopback, loopbackServer } from '../../client/src/loopback.test-helper.ts';
import { createGateway } from './gateway.ts';
import { remoteGatewayGate } from './gateway-gate.ts';
import { connectClient, refusalOf, textOf } from './testing/gateway-fixture.ts';

/**
 * The gateway with a Countersign server as its approval service: a real server on a
 * loopback port (the server package's fixture: its policy, its agents), reached only
 * through `@countersign/client` over HTTP. Policy: `read_file` is allowed, a transfer
 * above 100 needs a finance approver, `delete_*` is denied.
 */
async function bankServer() {
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  const ran: Array<{ tool: string; args: unknown }> = [];
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
  server.registerTool('read_file', { inputSchema: { path: z.string() } }, async (args) => {
    ran.push({ tool: 'read_file', args });
    return text(`contents of ${args.path}`);
  });
  server.registerTool('transfer', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
    ran.push({ tool: 'transfer', args });
    return text(`sent ${args.amount} to ${args.to}`);
  });
  server.registerTool('delete_file', { inputSchema: { path: z.string() } }, async (args) => {
    ran.push({ tool: 'delete_file', args });
    return text('deleted');
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}

describe('gateway → a Countersign server over HTTP as the approval service', () => {
  let service: Loopback | undefined;
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
    await service?.close();
    service = undefined;
  });

  async function setup(token?: string) {
    // No tools hosted by the server itself: the gateway's upstream runs them. Definitions are trusted on first use here.
    service ??= await loopbackServer({}, { definitions: new MemoryDefinitionStore(), tools: {}, trustOnFirstUse: true });
    const upstream = await bankServer();
    const remote = service.client(token === undefined ? {} : { token });
    const gateway = await createGateway({
      upstreams: [{ name: 'bank', transport: upstream.transport }],
      gate: remoteGatewayGate(remote),
      agent: { id: 'not-sent' },
      principal: 'user:42',
      approvalUrl: service.url,
    });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    return { upstream, client, remote, service };
  }

  const call = (client: Awaited<ReturnType<typeof setup>>['client'], name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  it('lists, allows, denies, and runs an approved call once, only after approval on the server', async () => {
    const { upstream, client, remote, service } = await setup();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['delete_file', 'read_file', 'transfer']);

    expect(textOf(await call(client, 'read_file', { path: '/tmp/a' }))).toBe('contents of /tmp/a');
    expect(refusalOf(await call(client, 'delete_file', { path: '/tmp/a' }))).toMatchObject({ reason: 'policy_deny' });

    const pending = refusalOf(await call(client, 'transfer', { to: 'alice', amount: 500 }));
    expect(pending).toMatchObject({ reason: 'approval_required', approvalUrl: `${service.url}/requests/${String(pending?.requestId)}` });
    expect(upstream.ran.map((r) => r.tool)).toEqual(['read_file']);

    // A finance approver approves on the server, through its approver API.
    const decided = await service.fixture.fiona('POST', '/api/v1/decisions', { requestId: pending?.requestId, decision: 'approve' });
    expect(decided.status).toBe(200);
    expect(textOf(await call(client, 'transfer', { amount: 500, to: 'alice' }))).toBe('sent 500 to alice');
    expect(upstream.ran.at(-1)).toEqual({ tool: 'transfer', args: { to: 'alice', amount: 500 } });
    expect(refusalOf(await call(client, 'transfer', { to: 'alice', amount: 500 }))).toMatchObject({ reason: 'already_consumed' });
    expect(upstream.ran.filter((r) => r.tool === 'transfer')).toHaveLength(1);

    // The server recorded the result (complete), so the call reads `succeeded` there.
    const status = await remote.callStatus(String(pending?.proposalId));
    expect(status).toMatchObject({ ok: true, call: { state: 'succeeded', toolName: 'transfer' } });
  });

  it("a gateway holding another agent's token neither lists nor calls the first agent's tools", async () => {
    const first = await setup();
    await first.client.listTools();
    const { RIVAL_TOKEN } = await import('../../server/src/testing/server-fixture.ts');
    const rival = await setup(RIVAL_TOKEN);
    await expect(rival.client.listTools()).rejects.toThrow(/registered_by_other_agent|another agent/);
    expect(refusalOf(await call(rival.client, 'read_file', { path: '/tmp/a' }))).toMatchObject({ reason: 'registration_refused', message: expect.stringContaining('registered_by_other_agent') });
    expect(rival.upstream.ran).toEqual([]);
  });
});
