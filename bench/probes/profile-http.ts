/**
 * Profiling driver (not part of `npm run bench`): starts the HTTP bench's server child
 * with BENCH_SERVER_FLAGS, drives ONE flow at N clients for a while, prints round trips/s
 * and server CPU per round trip. `node --conditions=countersign-source bench/probes/profile-http.ts
 * <sqlite|postgres|memory> <pd|pac|bare2|bare3|floor2|floor3> <clients> <seconds>`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { runWorkers } from '../harness.ts';
import { bareThree, bareTwo, type Flow, floorThree, floorTwo, JsonClient, proposeAuthorizeComplete, proposeDispatch } from '../http-flows.ts';
import { PG_URL } from '../stores.ts';

const [kind = 'sqlite', flowName = 'pd', clientsText = '16', secondsText = '5'] = process.argv.slice(2);
const FLOWS: Record<string, [Flow, 'countersign' | 'bare' | 'floor']> = {
  pd: [proposeDispatch, 'countersign'],
  pac: [proposeAuthorizeComplete, 'countersign'],
  bare2: [bareTwo, 'bare'],
  bare3: [bareThree, 'bare'],
  // The durable floor (http-floor-server.ts): SQLite and Postgres only.
  floor2: [floorTwo, 'floor'],
  floor3: [floorThree, 'floor'],
};
const [flow, server] = FLOWS[flowName]!;
const clients = Number(clientsText);
const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
const child: ChildProcess = fork(new URL('../http-server-child.ts', import.meta.url), kind === 'postgres' ? [kind, PG_URL] : [kind], {
  execArgv: ['--conditions=countersign-source', ...flags],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [ready] = (await once(child, 'message')) as [{ ports: { countersign: number; bare: number; floor?: number } }];
const cpu = async () => {
  child.send('cpu');
  const [a] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; dbCpuUs?: number; floorDbCpuUs?: number }];
  return { server: a.cpu.user + a.cpu.system, db: (server === 'floor' ? a.floorDbCpuUs : server === 'countersign' ? a.dbCpuUs : undefined) ?? Number.NaN };
};
const port = ready.ports[server];
if (port === undefined) throw new Error(`no ${server} server beside the ${kind} store`);
const client = new JsonClient(port, clients);
const drive = async (ms: number) => {
  const deadline = performance.now() + ms;
  const latencies: number[] = [];
  await runWorkers(clients, async (w) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const t = performance.now();
      await flow(client, `c-${i}`, `r-${ms}-${w}`);
      latencies.push(performance.now() - t);
    }
  });
  return latencies.sort((a, b) => a - b);
};
await drive(1000);
const c0 = await cpu();
const t0 = performance.now();
const latencies = await drive(Number(secondsText) * 1000);
const n = latencies.length;
const at = (q: number) => latencies[Math.min(n - 1, Math.floor(q * n))]!.toFixed(2);
const s = (performance.now() - t0) / 1000;
const c1 = await cpu();
const db = Number.isNaN(c1.db) ? '' : `, database CPU ${((c1.db - c0.db) / n).toFixed(0)} µs/rt`;
console.log(`${kind} ${flowName} ${clients} clients: ${(n / s).toFixed(0)} rt/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, server CPU ${((c1.server - c0.server) / n).toFixed(0)} µs/rt${db}`);
client.close();
child.send('stop');
await once(child, 'exit');
