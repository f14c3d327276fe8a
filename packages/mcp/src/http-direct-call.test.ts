import { randomUUID } from 'node:crypto';
import { createServer, request, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { digestResult, type Gate } from '@countersign/core/gate';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway, type Gateway } from './gateway.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

const TOKEN = 'http-direct-call-test-token-0123456789abc';
const ACCEPT = 'application/json, text/event-stream';
const POLICY = `
version: 1
rules:
  - { id: sends, tool: "*__send", verdict: allow }
  - { id: notes, tool: "*__note", verdict: allow }
  - { id: wipes, tool: "*__wipe", verdict: deny }
  - { id: pays, tool: "*__pay", verdict: approve, approval: { approvers: { roles: [finance] } } }
`;
const AGENT = { id: 'gw' };
const RUN = 'run-direct';

/** An upstream on Streamable HTTP (the SDK's server), answering with an event stream or, with `json`, with JSON bodies. */
async function httpUpstream(json: boolean) {
  const ran: Array<{ tool: string; args: unknown }> = [];
  const mcp = new McpServer({ name: 'mail', version: '1.0.0' });
  mcp.registerTool('send', { inputSchema: { to: z.string(), body: z.string() } }, async (args) => {
    ran.push({ tool: 'send', args });
    // A result with more than text blocks: its digest must be of the result as the upstream sent it.
    return { content: [{ type: 'text', text: `sent to ${args.to}` }], structuredContent: { to: args.to, chars: args.body.length } };
  });
  mcp.registerTool('note', { inputSchema: { text: z.string() } }, async (args) => {
    ran.push({ tool: 'note', args });
    return { content: [{ type: 'text', text: args.text, annotations: { audience: ['user'] } }] };
  });
  mcp.registerTool('wipe', { inputSchema: {} }, async () => {
    ran.push({ tool: 'wipe', args: {} });
    return { content: [{ type: 'text', text: 'wiped' }] };
  });
  mcp.registerTool('pay', { inputSchema: { to: z.string() } }, async (args) => {
    ran.push({ tool: 'pay', args });
    return { content: [{ type: 'text', text: 'paid' }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: json });
  await mcp.connect(transport);
  const http: HttpServer = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    ran,
    close: async () => {
      await mcp.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A raw POST to the front; resolves with the whole answer, or at `until` in the body. */
function post(url: string, body: unknown, headers: Record<string, string>, until?: { text: string; after: (abort: () => void) => void }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: ACCEPT, ...headers } }, (res) => {
      let text = '';
      let told = false;
      res.on('data', (c: Buffer) => {
        text += c.toString();
        if (until !== undefined && !told && text.includes(until.text)) {
          told = true;
          until.after(() => {
            resolve({ status: res.statusCode ?? 0, text });
            req.destroy();
          });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (error) => (until === undefined ? reject(error) : undefined));
    req.end(JSON.stringify(body));
  });
}

describe('tools/call over the gateway’s HTTP front on the direct path (no SDK Server dispatch), to HTTP upstreams on the lean path', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  let sseUpstream: Awaited<ReturnType<typeof httpUpstream>>;
  let jsonUpstream: Awaited<ReturnType<typeof httpUpstream>>;
  let gate: Gate;
  let gateway: Gateway;
  let front: HttpFront;

  beforeAll(async () => {
    sseUpstream = await httpUpstream(false);
    jsonUpstream = await httpUpstream(true);
    gate = makeTestGate(POLICY, true);
    gateway = await createGateway({
      upstreams: [
        { name: 'sse', url: sseUpstream.url },
        { name: 'json', url: jsonUpstream.url },
      ],
      gate,
      agent: AGENT,
      principal: 'user-1',
      approvalWaitMs: 1_500,
      progressIntervalMs: 50,
    });
    front = await startHttpFront({ gateway, bearerToken: TOKEN });
    open.push(sseUpstream, jsonUpstream);
  }, 30_000);

  afterAll(async () => {
    await front?.close();
    await gateway?.close();
    for (const o of open) await o.close();
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}`, ...headers } } }));
    await client.listTools(); // pins the upstreams' tools
    open.push(client);
    return client;
  }

  /** An initialized raw session on the front. */
  async function rawSession(): Promise<string> {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const session = await new Promise<string>((resolve, reject) => {
      const req = request(front.url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: ACCEPT } }, (res) => {
        res.resume();
        resolve(String(res.headers['mcp-session-id']));
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    await post(front.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session });
    return session;
  }

  it('an allowed call runs with its arguments on either kind of upstream; the digest recorded with complete is of the raw result', async () => {
    const client = await connect();
    for (const [name, upstream] of [
      ['sse', sseUpstream],
      ['json', jsonUpstream],
    ] as const) {
      const result = (await client.callTool({ name: `${name}__send`, arguments: { body: 'hello', to: 'bob' } })) as CallToolResult;
      const raw = { content: [{ type: 'text', text: 'sent to bob' }], structuredContent: { to: 'bob', chars: 5 } };
      expect(result).toEqual(raw);
      expect(upstream.ran.at(-1)).toEqual({ tool: 'send', args: { to: 'bob', body: 'hello' } });
      const recorded = (await gate.auditLog.read()).filter((r) => r.type === 'result' && r.toolName === `${name}__send`).at(-1);
      expect(recorded?.detail).toMatchObject({ resultDigest: digestResult(raw) });
    }
    // A result the hand check leaves to the SDK schema (annotations) is relayed and digested the same way.
    const noted = (await client.callTool({ name: 'json__note', arguments: { text: 'n1' } })) as CallToolResult;
    expect(noted).toEqual({ content: [{ type: 'text', text: 'n1', annotations: { audience: ['user'] } }] });
  });

  it('a denied call and a call needing approval are refused with their typed reasons, and never run', async () => {
    const client = await connect();
    const before = sseUpstream.ran.length;
    expect(refusalOf((await client.callTool({ name: 'sse__wipe', arguments: {} })) as CallToolResult)).toMatchObject({ reason: 'policy_deny' });
    const paid = (await client.callTool({ name: 'sse__pay', arguments: { to: 'eve' } })) as CallToolResult;
    expect(refusalOf(paid)).toMatchObject({ reason: 'approval_required' });
    expect(sseUpstream.ran.length).toBe(before);
  });

  it('checks 3 and 4 hold: the run named in x-countersign-run, a swapped tool and a changed argument refused and audited, the recorded call runs once', async () => {
    const record = (id: string, name: string, args: Record<string, unknown>) =>
      gate.port(AGENT).propose({ runId: RUN, sessionId: 's-1', principal: 'user-1', toolCalls: [{ id, name, arguments: args }] });
    await record('c1', 'json__send', { to: 'bob', body: 'recorded' });
    const client = await connect({ 'x-countersign-run': RUN });
    const before = jsonUpstream.ran.length;
    const callMeta = { 'countersign/callId': 'c1' };
    expect(refusalOf((await client.callTool({ name: 'sse__send', arguments: { to: 'bob', body: 'recorded' }, _meta: callMeta })) as CallToolResult)).toMatchObject({ reason: 'tool_mismatch' });
    expect(refusalOf((await client.callTool({ name: 'json__send', arguments: { to: 'mallory', body: 'recorded' }, _meta: callMeta })) as CallToolResult)).toMatchObject({ reason: 'args_mismatch' });
    expect(refusalOf((await client.callTool({ name: 'json__send', arguments: { to: 'bob', body: 'never recorded' } })) as CallToolResult)).toMatchObject({ reason: 'unknown_call' });
    expect(jsonUpstream.ran.length).toBe(before);
    const reasons = (await gate.auditLog.read()).filter((r) => r.type === 'rejection').map((r) => r.reason);
    expect(reasons).toEqual(expect.arrayContaining(['tool_mismatch', 'args_mismatch']));
    expect(textOf((await client.callTool({ name: 'json__send', arguments: { body: 'recorded', to: 'bob' }, _meta: callMeta })) as CallToolResult)).toBe('sent to bob');
    expect(jsonUpstream.ran.slice(before)).toEqual([{ tool: 'send', args: { to: 'bob', body: 'recorded' } }]);
  });

  it('the session’s protocol-version check holds on the direct path: a call with an unsupported version is refused before anything runs', async () => {
    const session = await rawSession();
    const before = sseUpstream.ran.length;
    const call = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'sse__send', arguments: { to: 'bob', body: 'v' } } };
    const answer = await post(front.url, call, { 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Unsupported protocol version');
    expect(sseUpstream.ran.length).toBe(before);
  });

  it('JSON-RPC errors as the SDK Server answers them: an unknown tool, a tools/call without a name, an extra envelope key', async () => {
    const session = await rawSession();
    const s = { 'mcp-session-id': session };
    const unknown = await post(front.url, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'nowhere__x', arguments: {} } }, s);
    expect(JSON.parse(unknown.text)).toMatchObject({ id: 6, error: { code: -32602, message: expect.stringContaining('Unknown tool') } });
    const nameless = await post(front.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } }, s);
    expect(JSON.parse(nameless.text)).toMatchObject({ id: 7, error: { code: expect.any(Number) } });
    const extra = await post(front.url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'sse__send', arguments: { to: 'x', body: 'y' } }, smuggled: true }, s);
    expect(extra.status).toBe(400);
    expect(extra.text).toContain('-32700');
  });

  it('notifications/cancelled aborts a direct call waiting for approval: its wait ends and it is never answered', async () => {
    const session = await rawSession();
    const s = { 'mcp-session-id': session };
    const call = { jsonrpc: '2.0', id: 'wait-1', method: 'tools/call', params: { name: 'sse__pay', arguments: { to: 'carol' }, _meta: { progressToken: 'pt' } } };
    let cancelledAt = 0;
    // Once the first progress notification arrived (the call is waiting), the client cancels it; 2 s later (past the 1.5 s wait) the stream is read.
    const answer = await post(front.url, call, s, {
      text: 'notifications/progress',
      after: (done) => {
        void post(front.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'wait-1', reason: 'user gave up' } }, s).then(() => {
          cancelledAt = Date.now();
          setTimeout(done, 2_000);
        });
      },
    });
    expect(cancelledAt).toBeGreaterThan(0);
    expect(answer.text).not.toContain('"id":"wait-1"'); // no answer: without the abort the wait would end with approval_required
  });
});
