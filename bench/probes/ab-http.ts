/**
 * Profiling driver (not part of `npm run bench`): the HTTP bench's server child of two
 * checkouts (A and B, e.g. main and a branch), one flow driven against each in turn,
 * alternating A,B,B,A,… so drift on a shared machine falls on both sides alike. Prints
 * server CPU per round trip and round trips per second (medians), each with its per-pair B/A ratios.
 *   node --conditions=countersign-source bench/probes/ab-http.ts <memory|sqlite|postgres> <pd|pac|pa1c> <clients> <seconds> <pairs> <dirA> <dirB>
 * AB_SERVER_B=around: side B drives its child's `around` server (the same app, the gate answered from memory), so
 * with dirA = dirB the B/A ratio is the share of server CPU that is not the gate and its store.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { runWorkers } from '../harness.ts';
import { bareThree, bareTwo, type Flow, JsonClient, proposeAuthorizeComplete, proposeAuthorizedComplete, proposeDispatch } from '../http-flows.ts';
import { median } from '../stats.ts';
import { PG_URL } from '../stores.ts';

const [kind = 'memory', flowName = 'pd', clientsText = '16', secondsText = '3', pairsText = '5', dirA = '.', dirB = '.'] = process.argv.slice(2);
// pa1c: propose-and-authorize in one step (authorizeAllowed), then complete.
const FLOWS: Record<string, Flow> = { pd: proposeDispatch, pac: proposeAuthorizeComplete, pa1c: proposeAuthorizedComplete, bare2: bareTwo, bare3: bareThree };
const flow = FLOWS[flowName]!;
const clients = Number(clientsText);

async function start(dir: string, server: 'countersign' | 'around' = 'countersign') {
  const child: ChildProcess = fork(join(dir, 'bench/http-server-child.ts'), kind === 'postgres' ? [kind, PG_URL] : [kind], {
    cwd: dir,
    execArgv: ['--conditions=countersign-source'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ ports: { countersign: number; bare: number; around: number } }];
  const client = new JsonClient(flowName.startsWith('bare') ? ready.ports.bare : ready.ports[server], clients);
  const cpu = async () => {
    child.send('cpu');
    const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
    return answer.cpu.user + answer.cpu.system;
  };
  return { child, client, cpu };
}

const servers = [await start(dirA), await start(dirB, process.env.AB_SERVER_B === 'around' ? 'around' : 'countersign')];
let tag = 0;
/** One flow run against one server: its CPU per round trip (µs) and round trips per second. */
type Measurement = { cpu: number; rate: number };
async function measure(server: (typeof servers)[number], ms: number): Promise<Measurement> {
  const run = tag++;
  const before = await server.cpu();
  const started = performance.now();
  const deadline = started + ms;
  let n = 0;
  await runWorkers(clients, async (w) => {
    for (let i = 0; performance.now() < deadline; i++) {
      await flow(server.client, `c-${i}`, `r-${run}-${w}`);
      n++;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return { cpu: ((await server.cpu()) - before) / n, rate: n / seconds };
}
for (const server of servers) await measure(server, 1500);
const a: Measurement[] = [];
const b: Measurement[] = [];
for (let p = 0; p < Number(pairsText); p++) {
  for (const i of p % 2 === 0 ? [0, 1] : [1, 0]) (i === 0 ? a : b).push(await measure(servers[i]!, Number(secondsText) * 1000));
}
const compare = (label: string, unit: string, of: (m: Measurement) => number) => {
  const ratios = a.map((x, i) => of(b[i]!) / of(x));
  return (
    `${label} (${unit}): A ${median(a.map(of)).toFixed(1)}  B ${median(b.map(of)).toFixed(1)}  ` +
    `B/A ${median(ratios).toFixed(3)} (pairs ${ratios.map((r) => r.toFixed(2)).join(' ')})`
  );
};
console.log(`${kind} ${flowName} ${clients} clients, medians of ${a.length} pairs`);
console.log(`  ${compare('server CPU', 'µs/rt', (m) => m.cpu)}`);
console.log(`  ${compare('throughput', 'rt/s', (m) => m.rate)}`);
for (const server of servers) {
  server.client.close();
  server.child.send('stop');
}
await Promise.all(servers.map((server) => once(server.child, 'exit')));
