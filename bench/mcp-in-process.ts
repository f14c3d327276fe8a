import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { createGateway, type Gateway } from '@countersign/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type BenchCase, type RoundOptions, runInterleaved } from './harness.ts';
import { ECHO_TOOL } from './mcp-child-ipc.ts';
import { echoServer } from './mcp-echo-server.ts';
import type { Ratio, Row } from './report.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

/**
 * The HTTP rows' decomposition: the same gateway (memory store, default options) and the
 * same upstream, all in this process over the SDK's in-memory transport, so no HTTP, no
 * sockets, no second process. What the gateway adds here is its own work (the gate's
 * propose/authorize/complete, the SDK's protocol layer on both of its sides); the rest
 * of the HTTP rows' added cost is the two extra Streamable HTTP hops.
 */
export async function benchMcpInProcess(options: RoundOptions): Promise<{ rows: Row[]; ratios: Ratio[] }> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const direct = await connectDirect(closers);
    const through = await connectThroughGateway(closers);
    let counter = 0;
    const calls = (client: Client): BenchCase['prepare'] => (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        const text = `call-${counter++}`;
        const result = (await client.callTool({ name: ECHO_TOOL, arguments: { text } })) as CallToolResult;
        if (result.isError === true) throw new Error(`tools/call answered ${JSON.stringify(result).slice(0, 300)}`);
      }
    };
    const [d, t] = await runInterleaved(
      [
        { name: 'direct to the upstream, in-memory transport', note: '', prepare: calls(direct) },
        { name: 'through the gateway (memory store), in-memory transports', note: '', prepare: calls(through) },
      ],
      options,
    );
    const section = 'MCP tools/call in one process over the in-memory transport (no HTTP), one client, median of rounds';
    const perCall = (opsPerSec: number) => 1e6 / opsPerSec;
    console.log(`\n## ${section}`);
    for (const r of [d!, t!]) console.log(`  ${r.name.padEnd(60)} ${Math.round(r.opsPerSec).toLocaleString('en-US').padStart(7)} calls/s  ${perCall(r.opsPerSec).toFixed(0).padStart(5)} µs per call`);
    const addedUs = perCall(t!.opsPerSec) - perCall(d!.opsPerSec);
    console.log(`  the gateway's own work per call (gate + SDK protocol on both sides, no HTTP): ${addedUs.toFixed(0)} µs`);
    return {
      rows: [d!, t!].map((r) => ({ section, name: r.name, value: r.opsPerSec, unit: 'calls/s', samples: r.samples })),
      ratios: [{ label: 'MCP gateway added per call without HTTP (in-memory transports, memory store)', value: addedUs / 1000, kind: 'ms' }],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

async function connectDirect(closers: Array<() => Promise<void>>): Promise<Client> {
  const server = echoServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(() => server.close(), () => client.close());
  return client;
}

async function connectThroughGateway(closers: Array<() => Promise<void>>): Promise<Client> {
  const upstream = echoServer();
  const [gatewaySide, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  closers.push(() => upstream.close());
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy(`version: 1\nrules:\n  - { id: bench-allow, tool: ${ECHO_TOOL}, verdict: allow }\n`, 'yaml'),
    trustOnFirstUse: true,
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  });
  const gateway: Gateway = await createGateway({ upstreams: [{ name: 'bench', transport: gatewaySide }], gate, agent: { id: 'mcp-gateway' }, principal: 'bench-user' });
  closers.push(() => gateway.close());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return client;
}
