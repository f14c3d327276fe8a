/**
 * Profiling driver (not part of `npm run bench`): starts the MCP bench's upstream and one
 * gateway child (BENCH_SERVER_FLAGS go to the gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
 * drives `tools/call` of the allowed tool through the gateway at N SDK clients for a while,
 * and prints calls/s and the gateway's CPU per call.
 * `node --conditions=countersign-source bench/probes/profile-mcp.ts <memory|sqlite> <clients> <seconds> [direct]`
 * (`direct`: the same clients straight to the upstream, for the upstream's own profile).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BENCH_GATEWAY_TOKEN, forkChild } from '../mcp-child-ipc.ts';
import { driveEchoCalls } from './echo-calls.ts';

const [kind = 'memory', clientsText = '1', secondsText = '5', target = 'gateway'] = process.argv.slice(2);
const clients = Number(clientsText);
const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
const upstream = await forkChild<{ url: string }>('./mcp-upstream-child.ts', [], target === 'direct' ? flags : []);
if (!upstream.ok) throw new Error(upstream.reason);
const gateway = await forkChild<{ url: string }>('./mcp-gateway-child.ts', [kind, upstream.child.info.url, 'default'], target === 'direct' ? [] : flags);
if (!gateway.ok) throw new Error(gateway.reason);
const measured = target === 'direct' ? upstream.child : gateway.child;
const sessions = await Promise.all(
  Array.from({ length: clients }, async () => {
    const client = new Client({ name: 'profile-client', version: '1.0.0' });
    const headers: Record<string, string> = target === 'direct' ? {} : { authorization: `Bearer ${BENCH_GATEWAY_TOKEN}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(measured.info.url), { requestInit: { headers } }));
    return client;
  }),
);
const drive = (ms: number) => driveEchoCalls(sessions, clients, ms);
await drive(500);
const before = await measured.cpu();
const start = performance.now();
const n = await drive(Number(secondsText) * 1000);
const elapsed = performance.now() - start;
const cpu = (await measured.cpu()) - before;
console.log(`${target} ${kind}, ${clients} clients: ${Math.round(n / (elapsed / 1000))} calls/s, ${target === 'direct' ? 'upstream' : 'gateway'} CPU ${Math.round(cpu / n)} µs per call`);
await Promise.allSettled(sessions.map((s) => s.close()));
await gateway.child.stop();
await upstream.child.stop();
