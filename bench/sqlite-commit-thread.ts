/**
 * Experiment (not part of `npm run bench`): should SQLite's group commit, and its fsync,
 * leave the event loop for a worker thread? Two minimal node:http servers do the same
 * durable step per POST (a ledger row and one hash-chained audit record under a
 * SAVEPOINT, synchronous=FULL, group-committed per event-loop turn): `loop` commits on
 * the event loop as SqliteConnection does; `worker` posts each step to a worker thread
 * owning the connection, which group-commits what has arrived and posts the answers
 * back. A client child runs 3 sequential POSTs per round trip (3 commits, like
 * propose + authorize + complete). Server CPU counts both threads.
 *
 *   node bench/sqlite-commit-thread.ts
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const SELF = fileURLToPath(import.meta.url);

interface Step {
  n: number;
  id: string;
  body: string;
}

function openDb(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS steps (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY, prev TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, event TEXT NOT NULL)');
  return db;
}

/** One transaction for `steps`, each under its savepoint; returns each step's audit hash. */
function batchRunner(db: DatabaseSync): (steps: Step[]) => string[] {
  const insert = db.prepare('INSERT INTO steps (id, body) VALUES (?, ?)');
  const head = db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1');
  const append = db.prepare('INSERT INTO audit (seq, prev, hash, event) VALUES (?, ?, ?, ?)');
  return (steps) => {
    db.exec('BEGIN IMMEDIATE');
    const hashes = steps.map((step) => {
      db.exec('SAVEPOINT s');
      insert.run(step.id, step.body);
      const last = head.get() as { seq: number; hash: string } | undefined;
      const event = JSON.stringify({ type: 'step', id: step.id, at: Date.now() });
      const prev = last?.hash ?? '0';
      const hash = createHash('sha256').update(prev).update(event).digest('hex');
      append.run((last?.seq ?? 0) + 1, prev, hash, event);
      db.exec('RELEASE s');
      return hash;
    });
    db.exec('COMMIT');
    return hashes;
  };
}

/** Collects steps submitted in one event-loop turn and commits them together on setImmediate (as WriteQueue does). */
function groupCommitter(run: (steps: Step[]) => string[], settle: (steps: Step[], hashes: string[]) => void): (step: Step) => void {
  let steps: Step[] = [];
  let scheduled = false;
  return (step) => {
    steps.push(step);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const batch = steps;
      steps = [];
      settle(batch, run(batch));
    });
  };
}

function serve(mode: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-commit-thread-'));
  const path = join(dir, 'x.sqlite');
  const waiting = new Map<number, (hash: string) => void>();
  let batches = 0;
  let steps = 0;
  const settle = (ns: number[], hashes: string[]) => {
    batches++;
    steps += ns.length;
    ns.forEach((k, i) => {
      waiting.get(k)!(hashes[i]!);
      waiting.delete(k);
    });
  };
  let submit: (step: Step) => void;
  if (mode === 'loop') {
    submit = groupCommitter(batchRunner(openDb(path)), (batch, hashes) => settle(batch.map((step) => step.n), hashes));
  } else {
    openDb(path).close();
    const worker = new Worker(SELF, { workerData: { path } });
    worker.on('message', ({ ns, hashes }: { ns: number[]; hashes: string[] }) => settle(ns, hashes));
    submit = (step) => worker.postMessage(step);
  }
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const step = { n: n++, id: `${process.pid}-${n}`, body };
      waiting.set(step.n, (hash) => {
        const text = JSON.stringify({ ok: true, hash });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      });
      submit(step);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  let cpu0 = process.cpuUsage();
  let elu0 = performance.eventLoopUtilization();
  process.on('message', (message) => {
    if (message === 'start') {
      cpu0 = process.cpuUsage();
      elu0 = performance.eventLoopUtilization();
      batches = 0;
      steps = 0;
    } else if (message === 'stop') {
      const cpu = process.cpuUsage(cpu0);
      process.send!({ cpu: cpu.user + cpu.system, elu: performance.eventLoopUtilization(elu0).utilization, perCommit: steps / batches });
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

async function load(port: number, clients: number, ms: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const text = JSON.stringify({ tool: 'transfer', args: { to: 'acct-1', amount: 100, memo: 'x'.repeat(150) } });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (res) => res.resume().on('end', resolve),
      );
      req.on('error', reject);
      req.end(text);
    });
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const client = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await post();
      await post();
      await post();
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  latencies.sort((a, b) => a - b);
  process.send!({ rt: latencies.length, p50: latencies[latencies.length >> 1], p99: latencies[Math.floor(latencies.length * 0.99)] });
  agent.destroy();
}

const next = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const rows = new Map<string, { rtps: number; p50: number; p99: number; cpu: number; elu: number; perCommit: number }[]>();
  for (let round = 0; round < 3; round++) {
    for (const clients of [1, 16]) {
      for (const mode of ['loop', 'worker']) {
        const server = fork(SELF, ['server', mode]);
        const { port } = await next<{ port: number }>(server);
        await next(fork(SELF, ['client', String(port), String(clients), '500'])); // warm-up
        server.send('start');
        const r = await next<{ rt: number; p50: number; p99: number }>(fork(SELF, ['client', String(port), String(clients), '3000']));
        server.send('stop');
        const s = await next<{ cpu: number; elu: number; perCommit: number }>(server);
        const key = `${mode.padEnd(6)} ${String(clients).padStart(2)} client${clients === 1 ? ' ' : 's'}`;
        rows.set(key, [...(rows.get(key) ?? []), { rtps: r.rt / 3, p50: r.p50, p99: r.p99, cpu: s.cpu / r.rt, elu: s.elu, perCommit: s.perCommit }]);
      }
    }
  }
  for (const [key, rs] of rows) {
    const m = (f: (r: (typeof rs)[number]) => number) => median(rs.map(f));
    console.log(
      `${key} ${m((r) => r.rtps).toFixed(0).padStart(6)} rt/s  p50 ${m((r) => r.p50).toFixed(2)} ms  p99 ${m((r) => r.p99).toFixed(2)} ms  ` +
        `server CPU ${m((r) => r.cpu).toFixed(0)} µs/rt  event loop busy ${(100 * m((r) => r.elu)).toFixed(0)}%  steps/commit ${m((r) => r.perCommit).toFixed(1)}`,
    );
  }
}

if (!isMainThread) {
  const port = parentPort!;
  const commit = groupCommitter(batchRunner(openDb((workerData as { path: string }).path)), (batch, hashes) =>
    port.postMessage({ ns: batch.map((step) => step.n), hashes }),
  );
  port.on('message', (step: Step) => commit(step));
} else if (process.argv[2] === 'server') {
  serve(process.argv[3]!);
} else if (process.argv[2] === 'client') {
  const [port, clients, ms] = process.argv.slice(3).map(Number);
  await load(port!, clients!, ms!);
} else {
  await main();
}
