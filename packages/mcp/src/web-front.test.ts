import type { Gate } from '@countersign/core/gate';
import { digestResult } from '@countersign/core/gate';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createGateway, type Gateway } from './gateway.ts';
import { makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';
import { type GatewayWebHandler, gatewayWebHandler } from './web-front.ts';

const URL_BASE = 'http://countersign.test/mcp';
const ACCEPT = 'application/json, text/event-stream';
const POLICY = `
version: 1
rules:
  - { id: sends, tool: send, verdict: allow }
  - { id: pays, tool: pay, verdict: approve, approval: { approvers: { roles: [finance] } } }
`;
const AGENT = { id: 'gw' };

async function upstreamServer() {
  const ran: Array<{ tool: string; args: unknown }> = [];
  const server = new McpServer({ name: 'mail', version: '1.0.0' });
  server.registerTool('send', { inputSchema: { to: z.string() } }, async (args) => {
    ran.push({ tool: 'send', args });
    return { content: [{ type: 'text', text: `sent to ${args.to}` }], structuredContent: { to: args.to } };
  });
  server.registerTool('pay', { inputSchema: { to: z.string() } }, async (args) => {
    ran.push({ tool: 'pay', args });
    return { content: [{ type: 'text', text: 'paid' }] };
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}

describe('serve --mcp’s handler (web-front.ts): tools/call answered directly when only its result can be sent', () => {
  let upstream: Awaited<ReturnType<typeof upstreamServer>>;
  let gate: Gate;
  let gateway: Gateway;
  let handler: GatewayWebHandler;
  const clients: Client[] = [];
  /** Content types of the handler's answers to tools/call POSTs, in order. */
  const answeredAs: string[] = [];

  const fetchThrough = async (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    const isCall = init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"tools/call"');
    const response = await handler.handle(request);
    if (isCall) answeredAs.push(response.headers.get('content-type') ?? '');
    return response;
  };

  beforeAll(async () => {
    upstream = await upstreamServer();
    gate = makeTestGate(POLICY, true);
    // A long approval wait: a call needing approval is still waiting when the test cancels it.
    gateway = await createGateway({ upstreams: [{ name: 'mail', transport: upstream.transport }], gate, agent: AGENT, principal: 'user-1', approvalWaitMs: 60_000, approvalUrl: 'https://approvals.test' });
    handler = gatewayWebHandler(gateway, { modern: false, allowedHosts: ['countersign.test'] });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await handler.close();
    await gateway.close();
    await upstream.close();
  });

  async function connect(capabilities: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(URL_BASE), { fetch: fetchThrough, requestInit: { headers } }));
    await client.listTools();
    clients.push(client);
    return client;
  }

  async function rawSession(): Promise<string> {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const opened = await handler.handle(new Request(URL_BASE, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(init) }));
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    await rawPost(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    return session;
  }

  const rawPost = (session: string, body: unknown, headers: Record<string, string> = {}) =>
    handler.handle(new Request(URL_BASE, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session, ...headers }, body: JSON.stringify(body) }));

  it('refuses with the standalone front’s JSON-RPC error shape (a foreign Origin, an unknown session, bad JSON)', async () => {
    const post = (headers: Record<string, string>, body: string) => handler.handle(new Request(URL_BASE, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body }));
    const foreign = await post({ origin: 'https://evil.example' }, '{}');
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'origin not allowed' } });
    const unknown = await post({ 'mcp-session-id': 'made-up' }, '{}');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32000 } });
    const garbled = await post({}, '{not json');
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ error: { code: -32700, message: 'the body is not JSON' } });
  });

  it('refuses a Host that is neither loopback nor allowed (DNS rebinding) with 403, before anything else; loopback names pass', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const post = (url: string) => handler.handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: init }));
    for (const url of ['http://evil.example/mcp', 'http://evil.example:8787/mcp', 'http://countersign.test.evil.example/mcp', 'http://10.0.0.7:8787/mcp']) {
      const answer = await post(url);
      expect(answer.status, url).toBe(403);
      expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'host not allowed' } });
    }
    for (const url of ['http://127.0.0.1:8787/mcp', 'http://localhost:1/mcp', 'http://[::1]:8787/mcp', 'http://COUNTERSIGN.test/mcp']) {
      const answer = await post(url);
      expect(answer.status, url).toBe(200);
      await answer.text();
    }
  });

  it('IPv6: an allowed address matches bracketed or bare; loopback origins pass only for a loopback bind, on its port', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const post = (h: GatewayWebHandler, url: string, headers: Record<string, string> = {}) =>
      h.handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: init }));
    const statusOf = async (answer: Promise<Response>) => {
      const response = await answer;
      await response.text();
      return response.status;
    };
    const v6 = gatewayWebHandler(gateway, { modern: false, allowedHosts: ['2001:db8::5'], bind: { host: '::1', port: 8787 } });
    const wide = gatewayWebHandler(gateway, { modern: false, bind: { host: '::', port: 8787 } });
    try {
      expect(await statusOf(post(v6, 'http://[2001:db8::5]:8787/mcp'))).toBe(200);
      expect(await statusOf(post(v6, 'http://[2001:db8::6]:8787/mcp'))).toBe(403);
      expect(await statusOf(post(v6, 'http://[0:0:0:0:0:0:0:1]:8787/mcp'))).toBe(200);
      for (const origin of ['http://[::1]:8787', 'http://127.0.0.1:8787', 'http://localhost:8787']) {
        expect(await statusOf(post(v6, 'http://[::1]:8787/mcp', { origin })), origin).toBe(200);
      }
      expect(await statusOf(post(v6, 'http://[::1]:8787/mcp', { origin: 'http://[::1]:8788' }))).toBe(403);
      // A wildcard bind is not a loopback one: a page served elsewhere on the network is another origin.
      expect(await statusOf(post(wide, 'http://[::1]:8787/mcp', { origin: 'http://[::1]:8787' }))).toBe(403);
    } finally {
      await v6.close();
      await wide.close();
    }
  });

  it('a POST declared in any charset but UTF-8 gets 415 with the same JSON-RPC error shape, before its body is parsed', async () => {
    const session = await rawSession();
    for (const headers of [{ 'content-type': 'application/json; charset=utf-16' }, { 'content-type': 'application/json; charset=utf-16', 'mcp-session-id': session }]) {
      const answer = await handler.handle(new Request(URL_BASE, { method: 'POST', headers: { accept: ACCEPT, ...headers }, body: '{not json' }));
      expect(answer.status).toBe(415);
      expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('UTF-8') } });
    }
  });

  it('an allowed call is answered as one JSON body, with the raw result recorded; a call needing approval is refused as before', async () => {
    const client = await connect();
    answeredAs.length = 0;
    const result = (await client.callTool({ name: 'send', arguments: { to: 'bob' } })) as CallToolResult;
    expect(result).toEqual({ content: [{ type: 'text', text: 'sent to bob' }], structuredContent: { to: 'bob' } });
    expect(answeredAs).toEqual(['application/json']);
    // Recorded once the answer has left (the loop's next turn).
    await vi.waitFor(async () => {
      const recorded = (await gate.auditLog.read()).filter((r) => r.type === 'result').at(-1);
      expect(recorded?.detail).toMatchObject({ resultDigest: digestResult(result) });
    });
  });

  it('a client that sent a progress token, or declared URL elicitation, is served by the SDK transport (its event stream), as before', async () => {
    const client = await connect();
    answeredAs.length = 0;
    await client.callTool({ name: 'send', arguments: { to: 'carol' } }, undefined, { onprogress: () => undefined });
    const eliciting = await connect({ elicitation: { url: {} } });
    await eliciting.callTool({ name: 'send', arguments: { to: 'dave' } });
    expect(answeredAs).toEqual(['text/event-stream', 'text/event-stream']);
    expect(upstream.ran.slice(-2).map((r) => r.args)).toEqual([{ to: 'carol' }, { to: 'dave' }]);
  });

  it('checks 3 and 4 hold on the direct path: the run named in x-countersign-run, a changed argument refused, the recorded call runs', async () => {
    await gate.port(AGENT).propose({ runId: 'run-web', sessionId: 's-1', principal: 'user-1', toolCalls: [{ id: 'c1', name: 'send', arguments: { to: 'erin' } }] });
    const client = await connect({}, { 'x-countersign-run': 'run-web' });
    const before = upstream.ran.length;
    const meta = { 'countersign/callId': 'c1' };
    expect(refusalOf((await client.callTool({ name: 'send', arguments: { to: 'mallory' }, _meta: meta })) as CallToolResult)).toMatchObject({ reason: 'args_mismatch' });
    expect(upstream.ran.length).toBe(before);
    expect(textOf((await client.callTool({ name: 'send', arguments: { to: 'erin' }, _meta: meta })) as CallToolResult)).toBe('sent to erin');
  });

  it('the SDK transport’s refusals still come first: an unsupported protocol version is a 400 and nothing runs', async () => {
    const session = await rawSession();
    const before = upstream.ran.length;
    const answer = await rawPost(session, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'send', arguments: { to: 'x' } } }, { 'mcp-protocol-version': '1999-01-01' });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('Unsupported protocol version');
    expect(upstream.ran.length).toBe(before);
    const unknown = await rawPost(session, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nowhere', arguments: {} } });
    // One upstream, no namespaces: any name is that upstream's, and a tool it does not serve is refused like on the SDK path.
    const refused = (await unknown.json()) as { id: number; result: CallToolResult };
    expect(refused.id).toBe(4);
    expect(refusalOf(refused.result)).toMatchObject({ toolName: 'nowhere' });
  });

  it('notifications/cancelled ends a direct call waiting for approval, unanswered (without it the call would wait a minute)', async () => {
    const session = await rawSession();
    const waiting = rawPost(session, { jsonrpc: '2.0', id: 'w1', method: 'tools/call', params: { name: 'pay', arguments: { to: 'frank' } } });
    await new Promise((r) => setTimeout(r, 100));
    const cancelled = await rawPost(session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w1', reason: 'gave up' } });
    expect(cancelled.status).toBe(202);
    const answer = await waiting;
    expect(await answer.text()).not.toContain('"w1"');
  });
});
