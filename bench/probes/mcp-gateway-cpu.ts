/**
 * Probe (not part of `npm run bench`): where the MCP gateway child's CPU goes per call.
 * Like profile-mcp.ts, but measures only the timed window, per thread (from /proc), and can
 * run a tool on the gateway for that window: `strace` (syscall counts) or `perf` (on-CPU
 * samples, with BENCH_SERVER_FLAGS=--perf-basic-prof for JS names).
 * `node --conditions=countersign-source bench/probes/mcp-gateway-cpu.ts <memory|sqlite> <clients> <seconds> [strace|perf]`
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BENCH_GATEWAY_TOKEN, forkChild } from '../mcp-child-ipc.ts';
import { driveEchoCalls } from './echo-calls.ts';

const [kind = 'sqlite', clientsText = '1', secondsText = '5', tool] = process.argv.slice(2);
const clients = Number(clientsText);
const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
const upstream = await forkChild<{ url: string }>('./mcp-upstream-child.ts', []);
if (!upstream.ok) throw new Error(upstream.reason);
const gateway = await forkChild<{ url: string }>('./mcp-gateway-child.ts', [kind, upstream.child.info.url, 'default'], flags);
if (!gateway.ok) throw new Error(gateway.reason);
const pid = Number(
  execFileSync('pgrep', ['-P', String(process.pid), '-f', 'mcp-gateway-child'], { encoding: 'utf8' }).trim().split('\n')[0],
);
const warmClients = Number(process.env.WARM_CLIENTS ?? clients);
const sessions = await Promise.all(
  Array.from({ length: Math.max(clients, warmClients) }, async () => {
    const client = new Client({ name: 'probe-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.child.info.url), { requestInit: { headers: { authorization: `Bearer ${BENCH_GATEWAY_TOKEN}` } } }));
    return client;
  }),
);
const drive = (ms: number, workers = clients) => driveEchoCalls(sessions, workers, ms);
const threads = () => {
  const out = new Map<string, { name: string; user: number; sys: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 });
    } catch {}
  }
  return out;
};
const switches = () => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]) + Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]);
};
await drive(Number(process.env.WARM_MS ?? 2000), warmClients);
if (warmClients !== clients) await drive(1000);
const seconds = Number(secondsText);
const traced =
  tool === 'strace'
    ? spawn('strace', process.env.STRACE_ARGS ? [...process.env.STRACE_ARGS.split(' '), '-p', String(pid)] : ['-c', '-f', '-o', '/tmp/gwp/strace.txt', '-p', String(pid)], { stdio: 'inherit' })
    : tool === 'perf'
      ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '2000', '-g', '-o', '/tmp/gwp/perf.data', '-p', String(pid)], { stdio: 'inherit' })
      : undefined;
if (traced !== undefined) await new Promise((r) => setTimeout(r, 500));
for (let window = 1; window < Number(process.env.WINDOWS ?? 1); window++) {
  const b = await gateway.child.cpu();
  const t = performance.now();
  const calls = await drive(seconds * 1000);
  console.log(`  window ${window}: ${calls} calls, ${Math.round(calls / ((performance.now() - t) / 1000))} calls/s, gateway CPU ${Math.round(((await gateway.child.cpu()) - b) / calls)} µs per call`);
}
if (process.env.REWARM_MS !== undefined) {
  const calls = await drive(Number(process.env.REWARM_MS), warmClients);
  console.log(`  rewarmed with ${calls} calls at ${warmClients} clients`);
}
const t0 = threads();
const s0 = switches();
const before = await gateway.child.cpu();
const start = performance.now();
const n = await drive(seconds * 1000);
const elapsed = performance.now() - start;
const cpu = (await gateway.child.cpu()) - before;
const s1 = switches();
const t1 = threads();
traced?.kill('SIGINT');
if (traced !== undefined && traced.exitCode === null && traced.signalCode === null) await new Promise((r) => traced.once('exit', r));
console.log(`${kind}, ${clients} clients: ${n} calls, ${Math.round(n / (elapsed / 1000))} calls/s, gateway CPU ${Math.round(cpu / n)} µs per call, ${((s1 - s0) / n).toFixed(1)} context switches per call`);
for (const [tid, a] of t1) {
  const b = t0.get(tid) ?? { user: 0, sys: 0 };
  const user = a.user - b.user;
  const sys = a.sys - b.sys;
  if (user + sys > 0) console.log(`  ${a.name.padEnd(16)} user ${Math.round((user * 1000) / n)} µs, sys ${Math.round((sys * 1000) / n)} µs per call${t0.has(tid) ? '' : ' (new thread)'}`);
}
await Promise.allSettled(sessions.map((c) => c.close()));
await Promise.all([gateway.child.stop(), upstream.child.stop()]);
