import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { capableClient, makeTestGate, textOf } from './testing/gateway-fixture.ts';
import { withCompileCache } from '@countersign/core/testing/children';

const RELAY_SERVER = fileURLToPath(new URL('./testing/relay-server.ts', import.meta.url));
const ALLOW_ALL = 'version: 1\nrules:\n  - id: all\n    tool: "*"\n    verdict: allow\n';
const ALL_THREE = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

/** A client that answers elicitation and roots but declares no sampling (many editors do not sample). */
async function noSamplingClient(gateway: Gateway): Promise<Client> {
  const client = new Client({ name: 'no-sampling', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Bo' } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 10_000 });

/** What the relay test server says its client (the gateway) declared at initialize. */
async function declaredUpstream(client: Client): Promise<unknown> {
  return JSON.parse(textOf(await call(client, 'client-capabilities')));
}

describe('the gateway declares to its upstream what its clients declared (a stdio upstream that reports it)', () => {
  const lines: string[] = [];
  let gateway: Gateway;
  const clients: Client[] = [];

  const start = async () => {
    gateway = await createGateway({
      upstreams: [{ name: 'relay', command: process.execPath, args: [RELAY_SERVER], env: withCompileCache({}) }],
      gate: makeTestGate(ALLOW_ALL, true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
      log: (line) => lines.push(line),
    });
  };

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await gateway?.close();
    lines.length = 0;
  });

  it('a client without sampling: the upstream is told no sampling (elicitation and roots, which it declared, yes)', async () => {
    await start();
    const client = await noSamplingClient(gateway);
    clients.push(client);
    expect(await declaredUpstream(client)).toEqual({ elicitation: { form: {} }, roots: { listChanged: true } });
  }, 30_000);

  it('a client with sampling, elicitation and roots: the upstream is told all three at its one and only start', async () => {
    await start();
    const client = await capableClient(gateway);
    clients.push(client);
    expect(await declaredUpstream(client)).toEqual(ALL_THREE);
    // Started once the client's initialize was read, not started bare and restarted to declare them (the start-up cost).
    const starts = () => lines.filter((line) => line.startsWith('[relay] relay-test ready')).length;
    await expect.poll(starts).toBeGreaterThan(0);
    expect(starts()).toBe(1);
    expect(lines.some((line) => line.includes('connected again'))).toBe(false);
    // And the relayed round trips work on the new connection.
    expect(textOf(await call(client, 'ask-sampling', { prompt: 'hi' }))).toBe('sampled: model says hi');
  }, 30_000);

  it('an upstream that samples anyway, during a call of a client without sampling, gets "Method not found" (-32601), not a timeout (and not another client’s model)', async () => {
    await start();
    // A capable client is connected too: the old relay handed the request to it, across sessions.
    const capable = await capableClient(gateway);
    const plain = await noSamplingClient(gateway);
    clients.push(capable, plain);
    // relay-server's ask-sampling calls createMessage, which its SDK sends whatever the client declared.
    const result = await call(plain, 'ask-sampling', { prompt: 'secret of the plain client' });
    expect(result.isError).toBe(true);
    // -32601 is the relay's own answer; a request left waiting would end in a timeout error instead.
    expect(textOf(result)).toContain('-32601');
    expect(textOf(result)).not.toMatch(/timed? ?out/i);
  }, 30_000);

  it('several clients (HTTP sessions) share the upstream: it is told the intersection, widened when the narrower client leaves', async () => {
    await start();
    const capable = await capableClient(gateway);
    clients.push(capable);
    expect(await declaredUpstream(capable)).toEqual(ALL_THREE);
    const plain = await noSamplingClient(gateway);
    await expect.poll(() => declaredUpstream(capable), { timeout: 10_000 }).toEqual({ elicitation: { form: {} }, roots: { listChanged: true } });
    await plain.close();
    await expect.poll(() => declaredUpstream(capable), { timeout: 10_000 }).toEqual(ALL_THREE);
  }, 60_000);

  it('no client yet: the upstream is told nothing', async () => {
    await start();
    // A bare SDK client declares nothing, so the upstream keeps its first connection.
    const client = new Client({ name: 'bare', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide);
    await client.connect(clientSide);
    clients.push(client);
    expect(await declaredUpstream(client)).toEqual({});
    expect(lines.some((line) => line.includes('connected again'))).toBe(false);
  }, 30_000);
});
