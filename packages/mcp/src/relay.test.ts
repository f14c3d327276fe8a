import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolResultSchema,
  ListResourcesRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { capableClient, makeTestGate, textOf } from './testing/gateway-fixture.ts';
import { COUNTER_URI } from './testing/relay-server.ts';
import { withCompileCache } from '@countersign/core/testing/children';

const RELAY_SERVER = fileURLToPath(new URL('./testing/relay-server.ts', import.meta.url));
const relayUpstream = { name: 'relay', command: process.execPath, args: [RELAY_SERVER], env: withCompileCache({}) };
const ALLOW_ALL = 'version: 1\nrules:\n  - id: all\n    tool: "*"\n    verdict: allow\n';

describe('the gateway relays the protocol around tool calls (a stdio upstream written for it)', () => {
  let gateway: Gateway;
  let client: Client;

  beforeAll(async () => {
    gateway = await createGateway({ upstreams: [relayUpstream], gate: makeTestGate(ALLOW_ALL, true), agent: { id: 'mcp-gateway' }, principal: 'user-1' });
    client = await capableClient(gateway);
    // The upstream is connected again to be told the client's capabilities: the first test's 1 s timeout is about progress, not that.
    await client.listTools();
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  it('a call longer than the client’s request timeout succeeds: the upstream’s progress reaches the client and resets its timeout', async () => {
    const seen: Progress[] = [];
    // 3 s of work against a 1 s timeout: only progress every 100 ms keeps the call alive.
    const result = await client.request({ method: 'tools/call', params: { name: 'slow', arguments: { ms: 3000, stepMs: 100 } } }, CallToolResultSchema, {
      timeout: 1000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => seen.push(p),
    });
    expect(textOf(result)).toBe('done after 30 steps');
    // The upstream's own counts (the last one may race the result and be dropped by the client's SDK).
    expect(seen.map((p) => p.progress)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1).slice(0, seen.length));
    expect(seen.length).toBeGreaterThanOrEqual(25);
    expect(seen.every((p) => p.total === 30)).toBe(true);
  });

  it('a call the client cancels is cancelled upstream', async () => {
    const abort = new AbortController();
    const waiting = client.request({ method: 'tools/call', params: { name: 'wait', arguments: {} } }, CallToolResultSchema, { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    abort.abort('the user pressed stop');
    await expect(waiting).rejects.toThrow();
    await expect.poll(async () => textOf(await client.request({ method: 'tools/call', params: { name: 'cancellations', arguments: {} } }, CallToolResultSchema))).toBe('1');
  });

  it('sampling, elicitation and roots asked by the upstream during a call are answered by the client', async () => {
    const call = (name: string, args: Record<string, unknown> = {}) => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
    expect(textOf(await call('ask-sampling', { prompt: 'hello' }))).toBe('sampled: model says hello');
    expect(textOf(await call('ask-elicitation'))).toBe('accept: Ada');
    expect(textOf(await call('ask-roots'))).toBe('file:///home/ada/project');
  });

  it('logging/setLevel reaches the upstream, and its log messages reach the client at that level', async () => {
    const lines: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      lines.push(n.params.data);
    });
    expect(client.getServerCapabilities()?.logging).toBeDefined();
    await client.setLoggingLevel('warning');
    await client.request({ method: 'tools/call', params: { name: 'log', arguments: {} } }, CallToolResultSchema);
    await expect.poll(() => lines).toEqual(['an error line']);
  });

  it('a resource subscription passes through: updates reach the subscribed client until it unsubscribes', async () => {
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await client.subscribeResource({ uri: COUNTER_URI });
    await client.request({ method: 'tools/call', params: { name: 'bump', arguments: {} } }, CallToolResultSchema);
    await expect.poll(() => updates).toEqual([COUNTER_URI]);
    await client.unsubscribeResource({ uri: COUNTER_URI });
    await client.request({ method: 'tools/call', params: { name: 'bump', arguments: {} } }, CallToolResultSchema);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(updates).toEqual([COUNTER_URI]);
  });
});

describe('two upstreams with resources, one without templates', () => {
  it('lists the others’ templates instead of failing for all; a URI nobody serves is one JSON-RPC error', async () => {
    // A low-level server with resources/list only: templates/list is "Method not found" there.
    const bare = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { resources: {} } });
    bare.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'bare://one', name: 'one' }] }));
    const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
    await bare.connect(serverSide);
    const gateway = await createGateway({
      upstreams: [relayUpstream, { name: 'bare', transport: gatewaySide }],
      gate: makeTestGate(ALLOW_ALL, true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
    });
    try {
      const client = await capableClient(gateway);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual(['bare://one', COUNTER_URI]);
      // The gateway's own JSON-RPC error, with one "MCP error" prefix (not "MCP error -32002: MCP error -32002: …").
      const unknown = await client.readResource({ uri: 'nowhere://x' }).then(
        () => undefined,
        (error: { code?: unknown; message?: unknown }) => ({ code: error.code, message: error.message }),
      );
      expect(unknown).toEqual({ code: -32002, message: 'MCP error -32002: Resource not found: nowhere://x' });
      await client.close();
    } finally {
      await gateway.close();
      await bare.close();
    }
  }, 30_000);
});
