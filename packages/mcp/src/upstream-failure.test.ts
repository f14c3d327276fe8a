import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';
import { COUNTER_URI, relayServer } from './testing/relay-server.ts';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const RELAY_SERVER = fileURLToPath(new URL('./testing/relay-server.ts', import.meta.url));
const stdio = (name: string) => ({ name, command: process.execPath, args: [RELAY_SERVER] });
const ALLOW_ALL = 'version: 1\nrules:\n  - id: all\n    tool: "*"\n    verdict: allow\n';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => undefined);
});

async function gatewayOf(upstreams: Parameters<typeof createGateway>[0]['upstreams'], reconnectBackoffMs = 200) {
  const lines: string[] = [];
  const gateway = await createGateway({ upstreams, gate: makeTestGate(ALLOW_ALL, true), agent: { id: 'mcp-gateway' }, principal: 'user-1', log: (l) => lines.push(l), reconnectBackoffMs });
  open.push(gateway);
  const client = await connectClient(gateway);
  open.push(client);
  return { gateway, client, lines };
}

const names = async (client: Awaited<ReturnType<typeof connectClient>>) => (await client.listTools()).tools.map((t) => t.name);

describe('a stdio upstream that crashes', () => {
  it('is hidden and refused `upstream_unavailable` while down, the other upstream keeps serving, and it comes back', async () => {
    const { client, lines } = await gatewayOf([stdio('a'), stdio('b')], 1500);
    expect(await names(client)).toEqual(expect.arrayContaining(['a__slow', 'b__slow']));
    // Its stderr is in the gateway's log, under its name.
    await expect.poll(() => lines.some((l) => /^\[a\] relay-test ready/.test(l))).toBe(true);

    // The process exits in the middle of the call: the call fails, typed, with nothing else affected.
    expect(refusalOf(await call(client, 'a__crash', {}))).toMatchObject({ reason: 'upstream_failed' });
    await expect.poll(() => lines.some((l) => l.startsWith('upstream a is unavailable'))).toBe(true);
    const listed = await names(client);
    expect(listed).toContain('b__slow');
    expect(listed.filter((n) => n.startsWith('a__'))).toEqual([]);
    expect(textOf(await call(client, 'b__bump', {}))).toBe('1');
    expect(refusalOf(await call(client, 'a__bump', {}))).toMatchObject({ reason: 'upstream_unavailable' });
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['test://counter']));

    // Restarted with backoff: listed and callable again.
    await expect.poll(() => lines.some((l) => l === 'upstream a is connected again'), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => names(client), { timeout: 5_000 }).toContain('a__slow');
    expect(textOf(await call(client, 'a__bump', {}))).toBe('1');
  }, 30_000);
});

describe('a stdio upstream killed and restarted', () => {
  it('gets again what the client set on the old process: its logging level and its resource subscriptions', async () => {
    const { client, lines } = await gatewayOf([stdio('a')]);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client.setLoggingLevel('error');
    await client.subscribeResource({ uri: COUNTER_URI });
    expect(textOf(await call(client, 'log-level', {}))).toBe('error');

    // Killed from outside (not a tool that exits): the pid it logged at start.
    const pidOf = (n: number) => Number(/pid (\d+)/.exec(lines.filter((l) => l.startsWith('[a] relay-test ready'))[n] ?? '')?.[1]);
    await expect.poll(() => pidOf(0)).toBeGreaterThan(0);
    process.kill(pidOf(0), 'SIGKILL');
    await expect.poll(() => lines.some((l) => l.startsWith('upstream a is unavailable'))).toBe(true);
    await expect.poll(() => lines.includes('upstream a is connected again'), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => pidOf(1)).toBeGreaterThan(0);
    expect(pidOf(1)).not.toBe(pidOf(0));

    // The new process was told both before it served: no call of the client's sees the gap.
    expect(textOf(await call(client, 'log-level', {}))).toBe('error');
    expect(textOf(await call(client, 'subscriptions', {}))).toBe(COUNTER_URI);
    expect(textOf(await call(client, 'bump', {}))).toBe('1');
    await expect.poll(() => updates).toEqual([COUNTER_URI]);
  }, 30_000);
});

describe('an upstream unreachable at start', () => {
  it('leaves the gateway running on the others, degraded, and says so', async () => {
    const dead = { name: 'dead', command: process.execPath, args: ['-e', 'console.error("cannot reach the API"); process.exit(3)'] };
    const { client, lines } = await gatewayOf([dead, stdio('b'), { name: 'gone', url: 'http://127.0.0.1:9/mcp' }], 60_000);
    expect(await names(client)).toEqual(expect.arrayContaining(['b__slow', 'b__bump']));
    expect((await names(client)).filter((n) => !n.startsWith('b__'))).toEqual([]);
    expect(refusalOf(await call(client, 'dead__anything', {}))).toMatchObject({ reason: 'upstream_unavailable' });
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^upstream dead is unavailable/), expect.stringMatching(/^upstream gone is unavailable/)]));
    // Why it failed, in its own words.
    await expect.poll(() => lines).toContain('[dead] cannot reach the API');
  }, 30_000);
});

/** The relay test server over Streamable HTTP, which forgets its sessions when restarted (as a real restart would). */
async function httpRelay(port = 0) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (typeof id === 'string' && known === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    if (known !== undefined) return known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sid) => void sessions.set(sid, transport) });
    await relayServer().connect(transport);
    await transport.handleRequest(req, res);
  };
  const server: HttpServer = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a Streamable HTTP upstream that restarts', () => {
  it('is initialized again: the gateway does not keep the dead session id', async () => {
    const first = await httpRelay();
    const { client, lines } = await gatewayOf([{ name: 'web', url: `http://127.0.0.1:${first.port}/mcp` }]);
    expect(textOf(await call(client, 'bump', {}))).toBe('1');
    await first.close();
    const second = await httpRelay(first.port);
    open.push(second);
    // The restarted server has a new counter and no memory of the old session.
    expect(textOf(await call(client, 'bump', {}))).toBe('1');
    expect(await names(client)).toContain('bump');
    expect(lines.some((l) => l.startsWith('upstream web lost the session'))).toBe(true);
  }, 30_000);
});
