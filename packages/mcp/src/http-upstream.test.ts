import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway, type Gateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: echo
    tool: "remote__echo"
    verdict: allow
  - id: wipe
    tool: "remote__wipe"
    verdict: deny
`;

/** An upstream on a Streamable HTTP endpoint on loopback (one stateful session: the gateway's). */
async function httpUpstream(): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = [];
  const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
  mcp.registerTool('echo', { description: 'Echo a text.', inputSchema: { text: z.string() } }, async ({ text }) => {
    calls.push(`echo:${text}`);
    return { content: [{ type: 'text', text }] };
  });
  mcp.registerTool('wipe', { description: 'Wipe everything.', inputSchema: {} }, async () => {
    calls.push('wipe');
    return { content: [{ type: 'text', text: 'wiped' }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const http: HttpServer = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: async () => {
      await mcp.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe('the gateway in front of a Streamable HTTP upstream (namespaced, beside a second upstream)', () => {
  let upstream: Awaited<ReturnType<typeof httpUpstream>>;
  let second: Awaited<ReturnType<typeof httpUpstream>>;
  let gateway: Gateway;

  beforeAll(async () => {
    upstream = await httpUpstream();
    second = await httpUpstream();
    gateway = await createGateway({
      upstreams: [
        { name: 'remote', url: upstream.url },
        { name: 'other', url: second.url },
      ],
      gate: makeTestGate(POLICY, true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await second?.close();
  });

  it('lists both upstreams namespaced, forwards an allowed call to the right one and refuses a denied one', async () => {
    const client = await connectClient(gateway);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    // Only what policy lets the principal call: the denied and the unclassified tools are hidden.
    expect(names).toEqual(['remote__echo']);
    expect(textOf(await call(client, 'remote__echo', { text: 'hi' }))).toBe('hi');
    expect(refusalOf(await call(client, 'remote__wipe', {}))).toMatchObject({ reason: 'policy_deny' });
    // No rule names other__echo: deny by default, although remote__echo is allowed.
    expect(refusalOf(await call(client, 'other__echo', { text: 'hi' }))).toMatchObject({ reason: 'unclassified_tool' });
    expect(upstream.calls).toEqual(['echo:hi']);
    expect(second.calls).toEqual([]);
    await client.close();
  });

  it('a name that names no upstream is a JSON-RPC invalid-params error, not a tool result', async () => {
    const client = await connectClient(gateway);
    await expect(call(client, 'nowhere__echo', { text: 'x' })).rejects.toThrow(/Unknown tool/);
    await expect(call(client, 'echo', { text: 'x' })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });
});
