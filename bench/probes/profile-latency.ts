/**
 * Profiling driver (not part of `npm run bench`): where a 1-client round trip's latency
 * goes. Starts the HTTP bench's server child with bench/probes/server-timing-preload.ts, runs one
 * flow back to back with one client, and prints the client's p50 per POST beside the
 * server's own time per request, its COMMIT wall time and its CPU per request.
 *   node --conditions=countersign-source bench/probes/profile-latency.ts <sqlite|sqlite-offloop|memory> <pac|pd> <seconds>
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { JsonClient, proposeAuthorizeComplete, proposeDispatch } from '../http-flows.ts';

interface Timing {
  requests: number;
  inServerUs: number;
  commitUs: number;
  commitsPerRequest: number;
  cpuUs: number;
}

const [kind = 'sqlite', flowName = 'pac', seconds = '4'] = process.argv.slice(2);
const child: ChildProcess = fork(new URL('../http-server-child.ts', import.meta.url), [kind], {
  execArgv: ['--conditions=countersign-source', '--import', new URL('./server-timing-preload.ts', import.meta.url).href],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [ready] = (await once(child, 'message')) as [{ ports: { countersign: number } }];
const client = new JsonClient(ready.ports.countersign, 1);
const flow = flowName === 'pd' ? proposeDispatch : proposeAuthorizeComplete;
const posts = flowName === 'pd' ? 2 : 3;
const timing = async (): Promise<Timing> => {
  child.send('timing');
  for (;;) {
    const [message] = (await once(child, 'message')) as [{ timing?: Timing }];
    if (message.timing !== undefined) return message.timing;
  }
};
for (let i = 0; i < 300; i++) await flow(client, `warm-${i}`, 'warm');
await timing();
const latencies: number[] = [];
const end = performance.now() + Number(seconds) * 1000;
for (let i = 0; performance.now() < end; i++) {
  const started = performance.now();
  await flow(client, `call-${i}`, 'timed');
  latencies.push(performance.now() - started);
}
const t = await timing();
latencies.sort((a, b) => a - b);
const p50 = latencies[latencies.length >> 1]! * 1000;
console.log(
  `${kind} ${flowName}, 1 client, ${latencies.length} round trips: client p50 ${Math.round(p50)} µs/rt = ${Math.round(p50 / posts)} µs/POST; ` +
    `server ${Math.round(t.inServerUs)} µs/request in-server (mean), of which COMMIT ${Math.round(t.commitUs)} µs × ${t.commitsPerRequest.toFixed(2)}; server CPU ${Math.round(t.cpuUs)} µs/request`,
);
client.close();
child.send('stop');
await once(child, 'exit');
