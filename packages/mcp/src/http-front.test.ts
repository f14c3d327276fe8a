import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { makeTestGate, refusalOf } from './testing/gateway-fixture.ts';

const MEMORY_BIN = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const TOKEN = `${'a'.repeat(24)}bearer-token-for-tests`;
const POLICY = `
version: 1
rules:
  - id: reads
    tool: read_graph
    verdict: allow
  - id: no-deletes
    tool: delete_entities
    verdict: deny
`;
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** A raw HTTP request, so the test can send any Host, Origin or Authorization header. */
function raw(url: string, headers: Record<string, string>, body: unknown = INIT): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('the gateway served over Streamable HTTP (in front of server-memory)', () => {
  let dir: string;
  let gateway: Gateway;
  let front: HttpFront;
  let host: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cs-mcp-http-front-'));
    gateway = await createGateway({
      upstreams: [{ name: 'memory', command: process.execPath, args: [MEMORY_BIN], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } }],
      gate: makeTestGate(POLICY, true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
    });
    front = await startHttpFront({ gateway, bearerToken: TOKEN, allowedOrigins: ['https://app.example'] });
    host = new URL(front.url).host;
  }, 30_000);

  afterAll(async () => {
    await front?.close();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the official SDK client with the bearer token: tools listed, an allowed call runs, a denied one is refused', async () => {
    const client = new Client({ name: 'remote-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_graph');
      const read = (await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect(read.isError).not.toBe(true);
      const denied = (await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['x'] } })) as CallToolResult;
      expect(refusalOf(denied)).toMatchObject({ reason: 'policy_deny' });
    } finally {
      await client.close();
    }
  });

  it('refuses a missing or wrong bearer token with 401', async () => {
    expect((await raw(front.url, {})).status).toBe(401);
    expect((await raw(front.url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await raw(front.url, { authorization: `Basic ${TOKEN}` })).status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign browser Origin with 403, even with the token', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await raw(front.url, { ...auth, host: 'evil.example' })).status).toBe(403);
    expect((await raw(front.url, { ...auth, host: `evil.example:${new URL(front.url).port}` })).status).toBe(403);
    expect((await raw(front.url, { ...auth, origin: 'https://evil.example' })).status).toBe(403);
    expect((await raw(front.url, { ...auth, origin: 'https://app.example', host })).status).toBe(200);
  });

  it('opens sessions only with initialize, and answers an unknown session 404', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect((await raw(front.url, auth, list)).status).toBe(400);
    expect((await raw(front.url, { ...auth, 'mcp-session-id': 'made-up' }, list)).status).toBe(404);
    expect((await raw(`${front.url}/other`, auth)).status).toBe(404);
  });

  it('accepts the endpoint’s own loopback origin (any other port is still foreign)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const port = Number(new URL(front.url).port);
    expect((await raw(front.url, { ...auth, host, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await raw(front.url, { ...auth, host, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await raw(front.url, { ...auth, host, origin: `http://127.0.0.1:${port + 1}` })).status).toBe(403);
  });

  it('answers every refusal with its status and one JSON-RPC error shape', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const unauthorized = await raw(front.url, {});
    expect(JSON.parse(unauthorized.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'a valid bearer token is required' } });
    const notInit = await raw(front.url, auth, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(JSON.parse(notInit.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(JSON.parse((await raw(front.url, { ...auth, origin: 'https://evil.example' })).text)).toMatchObject({ error: { code: -32000, message: 'origin not allowed' } });
  });

  it('a JSON-RPC POST declared in any charset but UTF-8 gets 415 with the one JSON-RPC error shape, before its body is parsed (in a session too)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const contentType of ['application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json; charset', 'text/plain']) {
      // Not a JSON-RPC request: were it read first, the answer would be 400.
      const answer = await raw(front.url, { ...auth, host, 'content-type': contentType }, 'not json');
      expect(answer.status, contentType).toBe(415);
      expect(JSON.parse(answer.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('UTF-8') } });
    }
    expect((await raw(front.url, { ...auth, host, 'content-type': 'application/json; charset=utf-16', 'mcp-session-id': 'any' }, 'not json')).status).toBe(415);
    expect((await raw(front.url, { ...auth, host, 'content-type': 'application/json; charset="UTF-8"' })).status).toBe(200);
  });

  it('a body over the limit gets 413 with the limit, not a connection reset', async () => {
    const small = await startHttpFront({ gateway, bearerToken: TOKEN, maxBodyBytes: 1024 });
    try {
      const big = { ...INIT, params: { ...INIT.params, padding: 'x'.repeat(256 * 1024) } };
      const answer = await raw(small.url, { authorization: `Bearer ${TOKEN}` }, big);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { message: 'request body too large (at most 1024 bytes)' } });
    } finally {
      await small.close();
    }
  });

  it('serves without a token only when asked to, and only on a loopback bind', async () => {
    await expect(startHttpFront({ gateway, bearerToken: undefined })).rejects.toThrow(/bearer token is required/);
    await expect(startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true, host: '0.0.0.0' })).rejects.toThrow(/loopback bind only/);
    const open = await startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true });
    try {
      expect((await raw(open.url, {})).status).toBe(200);
      // Host and Origin are still checked.
      expect((await raw(open.url, { host: 'evil.example' })).status).toBe(403);
    } finally {
      await open.close();
    }
  });

  it('on an IPv6 loopback bind ([::1]): its own Host and loopback origins pass, another port or address is refused', async () => {
    // Written as in a URL (bracketed) or bare: the same bind.
    for (const bind of ['::1', '[::1]']) {
      const v6 = await startHttpFront({ gateway, bearerToken: TOKEN, host: bind });
      try {
        const { port } = new URL(v6.url);
        expect(v6.url).toBe(`http://[::1]:${port}/mcp`);
        const auth = { authorization: `Bearer ${TOKEN}` };
        // node's request sends Host: [::1]:<port> for this URL.
        expect((await raw(v6.url, auth)).status).toBe(200);
        for (const origin of [`http://[::1]:${port}`, `http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
          expect((await raw(v6.url, { ...auth, origin })).status, origin).toBe(200);
        }
        expect((await raw(v6.url, { ...auth, origin: `http://[::1]:${Number(port) + 1}` })).status).toBe(403);
        expect((await raw(v6.url, { ...auth, host: `[::2]:${port}` })).status).toBe(403);
        expect((await raw(v6.url, { ...auth, host: `evil.example:${port}` })).status).toBe(403);
      } finally {
        await v6.close();
      }
    }
  });

  it('without a token only on loopback, however IPv6 loopback is written; not on an IPv6 wildcard', async () => {
    await expect(startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true, host: '::' })).rejects.toThrow(/loopback bind only/);
    await expect(startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true, host: '::ffff:10.0.0.1' })).rejects.toThrow(/loopback bind only/);
    const open = await startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true, host: '0:0:0:0:0:0:0:1' });
    try {
      expect((await raw(open.url, {})).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('refuses a short bearer token at startup', async () => {
    await expect(startHttpFront({ gateway, bearerToken: 'short' })).rejects.toThrow(/at least 32/);
  });
});
