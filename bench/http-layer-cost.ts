/**
 * Profiling driver (not part of `npm run bench`): what each layer of a Countersign POST
 * costs the server over real HTTP, 16 clients, rows interleaved in one child process:
 * the echo on plain node:http (no framework); the same echo on Hono + @hono/node-server
 * (the HTTP rows' baseline); + middleware, strict JSON intake, zod, jsonResponse; + bearer
 * authentication; + the gate's propose on a gate of its own (no app around it); the whole
 * app's POST /proposals on an in-memory gate. Server CPU per POST, medians.
 * (In-process microbenchmarks of the same code read 2-3× lower: here every request
 * also pays for switching between the client and server processes.)
 *   node --conditions=countersign-source bench/http-layer-cost.ts [rounds]
 * LAYER_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the servers' process;
 * LAYER_ROWS=full (comma-separated) measures only those rows, so the profile is theirs.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { ARGUMENT_CASES } from './arguments.ts';
import { runWorkers } from './harness.ts';
import { BENCH_AGENT_TOKEN, BENCH_TOOL, JsonClient } from './http-flows.ts';
import { median } from './stats.ts';

const rounds = Number(process.argv[2] ?? 7);
const child = fork(new URL('./http-layer-cost-child.ts', import.meta.url), [], { execArgv: ['--conditions=countersign-source', ...(process.env.LAYER_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0)], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ ports }] = (await once(child, 'message')) as [{ ports: Record<string, number> }];
const cpu = async (): Promise<number> => {
  child.send('cpu');
  const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
  return answer.cpu.user + answer.cpu.system;
};
const rows = Object.keys(ports).filter((row) => process.env.LAYER_ROWS === undefined || process.env.LAYER_ROWS.split(',').includes(row));
const clients = new Map(rows.map((row) => [row, new JsonClient(ports[row]!, 16)]));
let run = 0;
async function measure(row: string, ms: number): Promise<number> {
  const tag = run++;
  const before = await cpu();
  const end = performance.now() + ms;
  let posts = 0;
  await runWorkers(16, async (w) => {
    for (let i = 0; performance.now() < end; i++) {
      const body = { runId: `r${tag}-${w}`, sessionId: 's', principal: 'user:bench', toolCalls: [{ id: `c${i}`, name: BENCH_TOOL, arguments: ARGUMENT_CASES[0]!.args }] };
      await clients.get(row)!.post(row === 'full' ? '/api/v1/proposals' : '/p', body, row === 'node' || row === 'bare' || row === 'intake' ? undefined : BENCH_AGENT_TOKEN);
      posts++;
    }
  });
  return ((await cpu()) - before) / posts;
}
for (const row of rows) await measure(row, 800);
const samples = new Map(rows.map((row) => [row, [] as number[]]));
for (let r = 0; r < rounds; r++) for (const row of r % 2 === 0 ? rows : [...rows].reverse()) samples.get(row)!.push(await measure(row, 1000));
console.log(`Server CPU per POST over HTTP, 16 clients, median of ${rounds} interleaved rounds:`);
let previous: number | undefined;
for (const row of rows) {
  const value = median(samples.get(row)!);
  console.log(`  ${row.padEnd(7)} ${value.toFixed(1).padStart(6)} µs${previous === undefined ? '' : `  (+${(value - previous).toFixed(1)})`}`);
  previous = value;
}
for (const client of clients.values()) client.close();
child.send('stop');
