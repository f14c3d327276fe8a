import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';
import { relayServer } from './testing/relay-server.ts';
import { withCompileCache } from '@countersign/core/testing/children';

const RELAY_SERVER = fileURLToPath(new URL('./testing/relay-server.ts', import.meta.url));
const ALLOW_ALL = 'version: 1\nrules:\n  - id: all\n    tool: "*"\n    verdict: allow\n';
const LIMIT = 64 * 1024;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => undefined);
});

async function gatewayOf(upstreams: Parameters<typeof createGateway>[0]['upstreams']) {
  const lines: string[] = [];
  const gateway = await createGateway({ upstreams, gate: makeTestGate(ALLOW_ALL, true), agent: { id: 'mcp-gateway' }, principal: 'user-1', log: (l) => lines.push(l), reconnectBackoffMs: 100, maxMessageBytes: LIMIT });
  open.push(gateway);
  const client = await connectClient(gateway);
  open.push(client);
  return { client, lines };
}

/** The relay test server over Streamable HTTP, answering with JSON or with an event stream. */
async function httpRelay(json: boolean) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: HttpServer = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known !== undefined) return void known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, enableJsonResponse: json, onsessioninitialized: (sid) => void sessions.set(sid, transport) });
    void relayServer()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    for (const t of sessions.values()) await t.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  open.push({ close });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('an upstream message above maxMessageBytes is refused, typed, not read whole', () => {
  it('a stdio upstream’s result above maxMessageBytes: the call is refused result_too_large, the upstream restarts, calls under the limit run', async () => {
    const { client, lines } = await gatewayOf([{ name: 'a', command: process.execPath, args: [RELAY_SERVER], env: withCompileCache({}) }]);
    expect(textOf(await call(client, 'big', { bytes: 1000 }))).toHaveLength(1000);
    const refused = refusalOf(await call(client, 'big', { bytes: 4 * LIMIT }));
    expect(refused).toMatchObject({ reason: 'result_too_large' });
    expect(String(refused?.message)).toContain(`limit of ${LIMIT} bytes`);
    await expect.poll(() => lines.includes('upstream a is connected again'), { timeout: 10_000 }).toBe(true);
    expect(textOf(await call(client, 'big', { bytes: 1000 }))).toHaveLength(1000);
  }, 30_000);

  for (const json of [true, false]) {
    it(`a Streamable HTTP upstream answering ${json ? 'JSON' : 'an event stream'}: refused result_too_large; the session goes on`, async () => {
      const { client } = await gatewayOf([{ name: 'web', url: await httpRelay(json) }]);
      const refused = refusalOf(await call(client, 'big', { bytes: 4 * LIMIT }));
      expect(refused).toMatchObject({ reason: 'result_too_large' });
      expect(textOf(await call(client, 'big', { bytes: 1000 }))).toHaveLength(1000);
    }, 30_000);
  }

  it('through the SDK client’s path (a call with a progress token): the same refusal', async () => {
    const { client } = await gatewayOf([{ name: 'web', url: await httpRelay(false) }]);
    const answer = await client.request({ method: 'tools/call', params: { name: 'big', arguments: { bytes: 4 * LIMIT } } }, CallToolResultSchema, { onprogress: () => undefined });
    expect(refusalOf(answer)).toMatchObject({ reason: 'result_too_large' });
    const small = await client.request({ method: 'tools/call', params: { name: 'big', arguments: { bytes: 1000 } } }, CallToolResultSchema, { onprogress: () => undefined });
    expect(textOf(small)).toHaveLength(1000);
  }, 30_000);
});
