/**
 * Profiling driver (not part of `npm run bench`): what Hono + @hono/node-server cost per
 * request against a plain node:http handler doing the same JSON echo, so the question
 * "would a node:http handler for the hot agent routes pay off?" has a number. Both servers
 * run in one child process; the rows are interleaved; the figure is the server's CPU per POST.
 *   node --conditions=countersign-source bench/probes/http-stack-cost.ts [clients] [seconds per row] [rounds]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { runWorkers } from '../harness.ts';
import { JsonClient } from '../http-flows.ts';
import { median } from '../stats.ts';

const BODY = { runId: 'run-1', sessionId: 'session-bench', principal: 'user:bench', toolCalls: [{ id: 'call-1', name: 'transfer', arguments: { to: 'acct-42', amount: 1234, memo: 'x'.repeat(120) } }] };

function honoServer(): Server {
  const app = new Hono();
  app.post('/echo', async (c) => c.json({ echo: await c.req.json() }));
  return createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
}

function plainServer(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = JSON.stringify({ echo: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

if (process.argv[2] === 'child') {
  const ports = { hono: await listen(honoServer()), plain: await listen(plainServer()) };
  process.send!({ ports });
  process.on('message', (m) => {
    if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (m === 'stop') process.exit(0);
  });
} else {
  const [clients = 16, seconds = 2, rounds = 5] = process.argv.slice(2).map(Number);
  const child: ChildProcess = fork(new URL(import.meta.url), ['child'], { execArgv: ['--conditions=countersign-source'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ ports }] = (await once(child, 'message')) as [{ ports: { hono: number; plain: number } }];
  const cpu = async () => {
    child.send('cpu');
    const [a] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
    return a.cpu.user + a.cpu.system;
  };
  const http = { hono: new JsonClient(ports.hono, clients!), plain: new JsonClient(ports.plain, clients!) };
  const perPost: Record<'hono' | 'plain', number[]> = { hono: [], plain: [] };
  const run = async (which: 'hono' | 'plain', ms: number) => {
    const c0 = await cpu();
    let n = 0;
    const deadline = performance.now() + ms;
    await runWorkers(clients!, async () => {
      while (performance.now() < deadline) {
        await http[which].post('/echo', BODY);
        n++;
      }
    });
    return ((await cpu()) - c0) / n;
  };
  await run('hono', 500);
  await run('plain', 500);
  for (let r = 0; r < rounds!; r++) {
    for (const which of r % 2 === 0 ? (['hono', 'plain'] as const) : (['plain', 'hono'] as const)) perPost[which].push(await run(which, seconds! * 1000));
  }
  const hono = median(perPost.hono);
  const plain = median(perPost.plain);
  console.log(`server CPU per JSON POST, ${clients} clients, median of ${rounds} interleaved rounds: Hono + @hono/node-server ${hono.toFixed(1)} µs, plain node:http ${plain.toFixed(1)} µs (Hono adds ${(hono - plain).toFixed(1)} µs per request)`);
  http.hono.close();
  http.plain.close();
  child.send('stop');
}
