import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { makeTestGate, refusalOf } from './testing/gateway-fixture.ts';
import { HONEST, RUG, rugServer } from './testing/rug-server.ts';

const TOKEN = 'node-http-transport-test-token-0123456789';
const POLICY = `
version: 1
rules:
  - { id: lookups, tool: lookup, verdict: approve, approval: { approvers: { roles: [editors] } } }
`;
const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

interface Answer {
  status: number;
  type: string;
  session: string | undefined;
  text: string;
  /** The declared body length, when the answer was not chunked. */
  length: string | undefined;
}

/** A raw HTTP request with any method, headers and body; resolves when the response ends (or at the first chunk, for a GET stream). */
function raw(url: string, method: string, headers: Record<string, string>, body?: unknown, untilFirstChunk = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      let text = '';
      const answer = () => ({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), session: res.headers['mcp-session-id'] as string | undefined, text, length: res.headers['content-length'] });
      if (untilFirstChunk) {
        resolve(answer());
        res.destroy();
        return;
      }
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve(answer()));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) => raw(url, 'POST', { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body);

describe('the gateway front’s Streamable HTTP transport', () => {
  let gateway: Gateway;
  let front: HttpFront;
  let upstream: Awaited<ReturnType<typeof rugServer>>;
  let session: string;

  beforeAll(async () => {
    upstream = await rugServer();
    gateway = await createGateway({
      upstreams: [{ name: 'dict', transport: upstream.transport }],
      gate: makeTestGate(POLICY, true),
      agent: { id: 'gw' },
      principal: 'user-1',
      approvalWaitMs: 300,
      progressIntervalMs: 40,
    });
    front = await startHttpFront({ gateway, bearerToken: TOKEN });
    const opened = await post(front.url, INIT);
    session = opened.session ?? '';
    await post(front.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session });
  }, 30_000);

  afterAll(async () => {
    await front?.close();
    await gateway?.close();
    await upstream?.close();
  });

  it('answers a request the server answers at once with one application/json body, not an event stream', async () => {
    const listed = await post(front.url, LIST, { 'mcp-session-id': session });
    expect(listed).toMatchObject({ status: 200, type: 'application/json', session });
    expect(JSON.parse(listed.text)).toMatchObject({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'lookup' }] } });
    // Its length declared (not chunked), in bytes: a multi-byte result still reads whole.
    expect(Number(listed.length)).toBe(Buffer.byteLength(listed.text));
  });

  it('answers a notification with 202 and no body', async () => {
    expect(await post(front.url, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { 'mcp-session-id': session })).toMatchObject({ status: 202, text: '' });
  });

  it('turns the answer into an event stream when the server speaks first: progress while the call waits for approval, then the result', async () => {
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lookup', arguments: { word: 'sse' }, _meta: { progressToken: 'p1' } } };
    const answer = await post(front.url, call, { 'mcp-session-id': session });
    expect(answer).toMatchObject({ status: 200, type: 'text/event-stream' });
    const events = answer.text
      .split('\n\n')
      .filter((e) => e.startsWith('event: message'))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { method?: string; id?: number; result?: CallToolResult });
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.slice(0, -1).every((e) => e.method === 'notifications/progress')).toBe(true);
    const last = events.at(-1);
    expect(last?.id).toBe(3);
    expect(refusalOf(last?.result as CallToolResult)).toMatchObject({ reason: 'approval_required' });
  });

  it('the SDK client gets its progress notifications over it', async () => {
    const client = new Client({ name: 'desk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      const progress: number[] = [];
      const result = (await client.callTool({ name: 'lookup', arguments: { word: 'sdk' } }, undefined, { onprogress: (p) => progress.push(p.progress) })) as CallToolResult;
      expect(refusalOf(result)).toMatchObject({ reason: 'approval_required' });
      expect(progress.length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('delivers server messages about no request (tools/list_changed) on the client’s GET stream', { timeout: 20_000 }, async () => {
    const client = new Client({ name: 'desk', version: '1.0.0' });
    let changed = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed = true;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.description)).toEqual([HONEST]);
      // The SDK client opens its GET stream some time after initialize; a notification before that has nowhere to go.
      for (let i = 0; i < 100 && !changed; i++) {
        upstream.tool.update({ description: RUG });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(changed).toBe(true);
      expect((await client.listTools()).tools).toEqual([]); // the changed tool is hidden (check 1)
      upstream.tool.update({ description: HONEST });
    } finally {
      await client.close();
    }
  });

  it('refuses what the spec refuses, with a JSON-RPC error and the status the SDK transport uses', async () => {
    const s = { 'mcp-session-id': session };
    expect(await post(front.url, LIST, { ...s, accept: 'application/json' })).toMatchObject({ status: 406 });
    expect(await post(front.url, LIST, { ...s, 'content-type': 'text/plain' })).toMatchObject({ status: 415 });
    expect(await post(front.url, LIST, { ...s, 'mcp-protocol-version': '1999-01-01' })).toMatchObject({ status: 400, text: expect.stringContaining('Unsupported protocol version') });
    expect(await post(front.url, { jsonrpc: '2.0', id: 9, nonsense: true }, s)).toMatchObject({ status: 400, text: expect.stringContaining('-32700') });
    expect(await post(front.url, INIT, s)).toMatchObject({ status: 400, text: expect.stringContaining('already initialized') });
    expect(await post(front.url, Array.from({ length: 101 }, (_, i) => ({ ...LIST, id: i })), s)).toMatchObject({ status: 400, text: expect.stringContaining('Batch') });
    expect(await raw(front.url, 'PUT', s)).toMatchObject({ status: 405 });
    expect(await raw(front.url, 'GET', { ...s, accept: 'application/json' })).toMatchObject({ status: 406 });
  });

  it('answers a batch as one JSON array once every request in it is answered', async () => {
    const answer = await post(front.url, [LIST, { ...LIST, id: 7 }], { 'mcp-session-id': session });
    expect(answer).toMatchObject({ status: 200, type: 'application/json' });
    expect((JSON.parse(answer.text) as Array<{ id: number }>).map((a) => a.id)).toEqual([2, 7]);
  });

  it('allows one GET stream per session (409 for a second), and DELETE ends the session (404 after)', async () => {
    const opened = await post(front.url, INIT);
    const own = { 'mcp-session-id': opened.session ?? '' };
    await post(front.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, own);
    const first = request(front.url, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', ...own } });
    const firstAnswer = new Promise<number>((resolve) => first.on('response', (res) => resolve(res.statusCode ?? 0)));
    first.end();
    expect(await firstAnswer).toBe(200);
    expect(await raw(front.url, 'GET', { accept: 'text/event-stream', ...own })).toMatchObject({ status: 409 });
    expect(await raw(front.url, 'DELETE', own)).toMatchObject({ status: 200 });
    expect(await post(front.url, LIST, own)).toMatchObject({ status: 404 });
    first.destroy();
  });

  it('a client that hangs up while its call waits leaves the session working (the late answer has nowhere to go and is dropped)', async () => {
    const s = { 'mcp-session-id': session };
    const call = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'lookup', arguments: { word: 'gone' } } };
    const req = request(front.url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: ACCEPT, ...s } });
    req.on('error', () => undefined);
    req.end(JSON.stringify(call));
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    await new Promise((r) => setTimeout(r, 400)); // past approvalWaitMs: the gateway answers into the void
    const listed = await post(front.url, LIST, s);
    expect(listed).toMatchObject({ status: 200, type: 'application/json' });
  });
});
