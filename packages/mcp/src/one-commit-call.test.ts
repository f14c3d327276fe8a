import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { Gate } from '@countersign/core/gate';
import { type LedgerStore, MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Loopback, loopbackServer } from '../../client/src/loopback.test-helper.ts';
import { createGateway } from './gateway.ts';
import { remoteGatewayGate } from './gateway-gate.ts';
import { connectClient, payServer, textOf } from './testing/gateway-fixture.ts';

/** An upstream serving `read_file`. */
async function readServer() {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  server.registerTool('read_file', { inputSchema: { path: z.string() } }, async (args) => ({ content: [{ type: 'text' as const, text: `contents of ${args.path}` }] }));
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { transport: gatewaySide, close: () => server.close() };
}

const PAY_ALLOWED = 'version: 1\nrules:\n  - { id: payments, tool: pay, verdict: allow }\n';

/** `ledger` with every write counted by method name. */
function countingLedger(ledger: LedgerStore): { ledger: LedgerStore; writes: Record<string, number> } {
  const writes: Record<string, number> = {};
  const counted = new Proxy(ledger, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (key === 'recordProposal' || key === 'consume' || key === 'recordResult') writes[key] = (writes[key] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { ledger: counted, writes };
}

/**
 * A direct `tools/call` that policy allows is proposed with `authorizeAllowed`: recorded
 * consumed in the proposal's own write, then run and completed. Two ledger writes (two
 * durable commits on SQLite and Postgres), where the propose, authorize, complete path took three.
 */
describe('an allowed direct call: propose-and-authorize, run, complete', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  let service: Loopback | undefined;
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
    await service?.close();
    service = undefined;
  });

  it('in process: one proposal write and one result write, no separate consume; the same call again runs as a new call', async () => {
    const audit = new MemoryAuditLog();
    const { ledger, writes } = countingLedger(new MemoryLedger({ audit }));
    const gate = new Gate({ definitions: new MemoryDefinitionStore(), ledger, audit, policy: loadPolicy(PAY_ALLOWED, 'yaml'), keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 0x5a))]), trustOnFirstUse: true });
    const upstream = await payServer();
    const gateway = await createGateway({ upstreams: [{ name: 'bank', transport: upstream.transport }], gate, agent: { id: 'gw' }, principal: 'user-1' });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    await client.listTools();
    const pay = () => client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }) as Promise<CallToolResult>;

    expect(textOf(await pay())).toBe('paid 5 to bob');
    // The result is recorded once the answer has left (the loop's next turn).
    await vi.waitFor(() => expect(writes).toEqual({ recordProposal: 1, recordResult: 1 }));
    const trail = (await audit.read()).filter((r) => r.toolName === 'pay' && r.proposalId !== undefined).map((r) => r.type);
    expect(trail).toEqual(['proposal', 'dispatch', 'result']);

    // Reading the same thing twice: the spent call is not run again, a new call is.
    expect(textOf(await pay())).toBe('paid 5 to bob');
    expect(upstream.ran).toHaveLength(2);
  });

  it('over @countersign/client: the service hands the grant back with the proposal; authorize is never called', async () => {
    // The server fixture's policy allows read_file.
    service = await loopbackServer({}, { definitions: new MemoryDefinitionStore(), tools: {}, trustOnFirstUse: true });
    const upstream = await readServer();
    const remote = service.client();
    let authorizeCalls = 0;
    const counted = {
      ...remote,
      authorize: (request: Parameters<typeof remote.authorize>[0]) => {
        authorizeCalls += 1;
        return remote.authorize(request);
      },
    };
    const gateway = await createGateway({ upstreams: [{ name: 'files', transport: upstream.transport }], gate: remoteGatewayGate(counted), agent: { id: 'not-sent' }, principal: 'user:42' });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    await client.listTools();
    const read = (await client.callTool({ name: 'read_file', arguments: { path: '/tmp/a' } })) as CallToolResult;
    expect(textOf(read)).toBe('contents of /tmp/a');
    expect(authorizeCalls).toBe(0);
    // A direct call's result is recorded after the answer; closing waits for it.
    await gateway.close();
    const trail = (await service.fixture.audit.read()).filter((r) => r.toolName === 'read_file' && r.proposalId !== undefined).map((r) => r.type);
    expect(trail).toEqual(['proposal', 'dispatch', 'result']);
  });
});
