/**
 * Probe (not part of `npm run bench`): the SQLite gateway of two source trees side by side
 * at 1 client, interleaved round by round against one upstream and one byte relay, so a
 * change's effect on the added latency shows within one run on a loaded machine.
 *   node --conditions=countersign-source bench/probes/mcp-gateway-ab.ts <tree A> [tree B] [rounds] [round ms]
 * Each tree is a checkout with the same bench/ (a `git archive` of the older commit with
 * this node_modules linked in); B defaults to this tree. Prints, per round and as the
 * median of rounds: p50 beyond the relay and gateway CPU per call, for A and B.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BENCH_GATEWAY_TOKEN, type ChildHandle, ECHO_TOOL, forkChild } from '../mcp-child-ipc.ts';
import { median } from '../stats.ts';

const [treeA, treeB = resolve(import.meta.dirname, '../..'), roundsText = '10', roundMsText = '1000'] = process.argv.slice(2);
if (treeA === undefined) throw new Error('usage: mcp-gateway-ab.ts <tree A> [tree B] [rounds] [round ms]');
const childOf = (tree: string, script: string) => pathToFileURL(resolve(tree, 'bench', script)).href;

const upstream = await start(childOf(treeB, 'mcp-upstream-child.ts'), []);
const url = upstream.info.url;
const targets = {
  relay: await start(childOf(treeB, 'mcp-relay-child.ts'), [url]),
  A: await start(childOf(treeA, 'mcp-gateway-child.ts'), ['sqlite', url, 'default']),
  B: await start(childOf(treeB, 'mcp-gateway-child.ts'), ['sqlite', url, 'default']),
};
type Name = keyof typeof targets;
const names = Object.keys(targets) as Name[];
const clients = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await connect(targets[n].info.url, n !== 'relay')] as const))) as Record<Name, Client>;

let counter = 0;
async function run(name: Name, ms: number): Promise<{ p50: number; cpuUs: number; commits: number }> {
  const before = await targets[name].cpu();
  const commitsBefore = targets[name].commits() ?? 0;
  const latencies: number[] = [];
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const t = performance.now();
    const result = await clients[name].callTool({ name: ECHO_TOOL, arguments: { text: `ab-${counter++}` } });
    latencies.push(performance.now() - t);
    if (result.isError === true) throw new Error(JSON.stringify(result));
  }
  const cpuUs = ((await targets[name].cpu()) - before) / latencies.length;
  return { p50: median(latencies), cpuUs, commits: ((targets[name].commits() ?? 0) - commitsBefore) / latencies.length };
}

// JIT warm-up, as the bench does: a few thousand calls each before anything is timed.
for (const name of names) await run(name, 4_000);
const rows: Record<Name, { p50: number; cpuUs: number; commits: number }[]> = { relay: [], A: [], B: [] };
const rounds = Number(roundsText);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) rows[name].push(await run(name, Number(roundMsText)));
  const r = (n: Name) => rows[n][round]!;
  console.log(`round ${round + 1}: beyond relay A ${(r('A').p50 - r('relay').p50).toFixed(3)} ms, B ${(r('B').p50 - r('relay').p50).toFixed(3)} ms; CPU/call A ${Math.round(r('A').cpuUs)} µs, B ${Math.round(r('B').cpuUs)} µs`);
}
const beyond = (n: Name) => median(rows[n].map((x, i) => x.p50 - rows.relay[i]!.p50));
const cpu = (n: Name) => median(rows[n].map((x) => x.cpuUs));
const commits = (n: Name) => median(rows[n].map((x) => x.commits)).toFixed(2);
console.log(`median of ${rounds} rounds: added p50 beyond the relay A ${beyond('A').toFixed(3)} ms, B ${beyond('B').toFixed(3)} ms (B − A ${(beyond('B') - beyond('A')).toFixed(3)}); gateway CPU per call A ${Math.round(cpu('A'))} µs, B ${Math.round(cpu('B'))} µs; durable commits per call A ${commits('A')}, B ${commits('B')}; relay p50 ${median(rows.relay.map((x) => x.p50)).toFixed(3)} ms`);
await Promise.allSettled(Object.values(clients).map((c) => c.close()));
await Promise.all([...Object.values(targets), upstream].map((t) => t.stop()));

async function start(script: string, args: string[]): Promise<ChildHandle<{ url: string }>> {
  const started = await forkChild<{ url: string }>(script, args);
  if (!started.ok) throw new Error(started.reason);
  return started.child;
}

async function connect(target: string, gateway: boolean): Promise<Client> {
  const client = new Client({ name: 'ab-client', version: '1.0.0' });
  const headers: Record<string, string> = gateway ? { authorization: `Bearer ${BENCH_GATEWAY_TOKEN}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } }));
  return client;
}
