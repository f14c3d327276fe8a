/**
 * `npm run bench -- replicas`: several `countersign serve` processes on ONE PostgreSQL
 * database (the deployment DESIGN.md describes past one machine), driven with the
 * approved-call flow at 16 clients spread over the replicas, beside one replica with the
 * same load. Each call crosses replicas: proposed, authorized and completed through one,
 * approved through the next (so nothing in a replica's memory carries it). Both groups
 * run at once, on their own schemas, and are driven in alternating rounds, so drift in a
 * shared machine's load hits both alike. Every process here is started by this file and
 * stopped by it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { dropSchema } from './drop-schema.ts';
import { formatMs, formatRate, formatRatio, printRatios, type Ratio, type Row } from './report.ts';
import { median } from './stats.ts';
import { PG_URL } from './stores.ts';

// The root `npm run countersign` script's entry, as it starts it (sources, no build).
export const CLI = new URL('../packages/cli/bin/countersign.js', import.meta.url).pathname;
const AGENT_TOKEN = `bench-agent-${randomBytes(12).toString('hex')}`;
const APPROVER_TOKEN = `bench-approver-${randomBytes(12).toString('hex')}`;
// Over the demo policy's threshold: the call needs an approver.
const ARGS = { amount: 2500, to: 'erin' };

export interface ReplicasOptions {
  clients: number;
  replicas: number;
  rounds: number;
  roundMs: number;
  warmupMs: number;
}

export interface ReplicasResult {
  rows: Row[];
  ratios: Ratio[];
}

interface Serve {
  port: number;
  stop(): Promise<void>;
}

/** `countersign serve --json --port 0` on `schema`; resolves once it prints `listening`. */
async function startServe(schema: string, secret: string, cwd: string): Promise<Serve> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('COUNTERSIGN_')));
  const child: ChildProcess = spawn(process.execPath, ['--conditions=countersign-source', CLI, 'serve', '--json', '--port', '0'], {
    cwd,
    env: {
      ...inherited,
      COUNTERSIGN_DATABASE_URL: PG_URL,
      COUNTERSIGN_PG_SCHEMA: schema,
      // One master secret for all replicas: keys are derived from it (invariant 8), so any replica verifies any other's token.
      COUNTERSIGN_MASTER_SECRET: secret,
      COUNTERSIGN_AGENT_TOKEN: AGENT_TOKEN,
      COUNTERSIGN_APPROVER_TOKEN: APPROVER_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 30 s: ${stderr}`)), 30_000);
    lines.on('line', (line) => {
      if (!line.includes('"listening"')) return;
      clearTimeout(timer);
      resolve(Number(new URL((JSON.parse(line) as { url: string }).url).port));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited before listening: ${stderr}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  // Its per-call events are drained unparsed: the load generator shares the CPU.
  lines.close();
  child.stdout!.resume();
  return {
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A keep-alive JSON client for one replica (GET and POST, bearer token). */
class Client {
  readonly #agent: Agent;
  readonly port: number;
  constructor(port: number) {
    this.port = port;
    this.#agent = new Agent({ keepAlive: true, maxSockets: 64 });
  }

  send(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<Record<string, unknown>> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          agent: this.#agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const answer = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`${method} ${path}: HTTP ${res.statusCode} ${answer.slice(0, 300)}`));
            else resolve(JSON.parse(answer) as Record<string, unknown>);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** One approved call: propose, approve (through `approver`), token, authorize, complete (through `agent`). */
async function approvedCall(agent: Client, approver: Client, runId: string, callId: string): Promise<void> {
  const proposed = await agent.send('POST', '/api/v1/proposals', AGENT_TOKEN, {
    runId,
    sessionId: 'session-replicas',
    principal: 'user:replicas',
    toolCalls: [{ id: callId, name: 'transfer', arguments: ARGS }],
  });
  const outcome = (proposed.outcomes as { status: string; proposalId: string; requestId: string }[])[0]!;
  if (outcome.status !== 'approval_required') throw new Error(`propose gave ${JSON.stringify(outcome)}`);
  const decided = await approver.send('POST', '/api/v1/decisions', APPROVER_TOKEN, { requestId: outcome.requestId, decision: 'approve' });
  if (decided.ok === false) throw new Error(`decision gave ${JSON.stringify(decided)}`);
  const issued = await agent.send('GET', `/api/v1/requests/${encodeURIComponent(outcome.requestId)}/token`, AGENT_TOKEN);
  const authorized = await agent.send('POST', '/api/v1/authorize', AGENT_TOKEN, { proposalId: outcome.proposalId, token: issued.token });
  if (authorized.status !== 'authorized') throw new Error(`authorize gave ${JSON.stringify(authorized)}`);
  const completed = await agent.send('POST', '/api/v1/complete', AGENT_TOKEN, { grant: authorized.grant, completion: { status: 'succeeded', result: { ok: true } } });
  if (completed.ok !== true) throw new Error(`complete gave ${JSON.stringify(completed)}`);
}

interface Sample {
  perSec: number;
  latencies: number[];
}

let nextCall = 0;

/** `clients` loops of `approvedCall` for `ms`, client i on replica i mod n and approved through the next one. */
async function drive(replicas: Client[], clients: number, ms: number): Promise<Sample> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const agent = replicas[i % replicas.length]!;
      const approver = replicas[(i + 1) % replicas.length]!;
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await approvedCall(agent, approver, `run-replicas-${i}`, `call-${i}-${++nextCall}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { perSec: latencies.length / ((performance.now() - started) / 1000), latencies };
}

export async function benchReplicas(o: ReplicasOptions): Promise<ReplicasResult> {
  const section = `Replicas: ${o.replicas} \`countersign serve\` processes on one PostgreSQL database vs 1, approved-call flow (propose, decide, token, authorize, complete), ${o.clients} clients, median of ${o.rounds} rounds`;
  const secret = randomBytes(32).toString('hex');
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-replicas-'));
  const groups = [1, o.replicas].map((n) => ({ n, schema: `cs_replicas_${n}_${randomBytes(6).toString('hex')}`, serves: [] as Serve[], clients: [] as Client[], samples: [] as Sample[] }));
  try {
    for (const group of groups) {
      // One first, so the schema's migration runs once; the rest join it together.
      group.serves.push(await startServe(group.schema, secret, cwd));
      group.serves.push(...(await Promise.all(Array.from({ length: group.n - 1 }, () => startServe(group.schema, secret, cwd)))));
      group.clients = group.serves.map((s) => new Client(s.port));
    }
    for (const group of groups) await drive(group.clients, o.clients, o.warmupMs);
    for (let round = 0; round < o.rounds; round++) {
      // Alternating which goes first, round by round.
      const order = round % 2 === 0 ? groups : [...groups].reverse();
      for (const group of order) group.samples.push(await drive(group.clients, o.clients, o.roundMs));
    }
  } finally {
    for (const group of groups) {
      for (const client of group.clients) client.close();
      await Promise.all(group.serves.map((s) => s.stop()));
      await dropSchema(PG_URL, group.schema).catch(() => {});
    }
    rmSync(cwd, { recursive: true, force: true });
  }
  const rows: Row[] = [];
  const lines: string[] = [];
  const rates = new Map<number, number>();
  for (const group of groups) {
    const all = group.samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
    const rate = median(group.samples.map((s) => s.perSec));
    rates.set(group.n, rate);
    const name = `${group.n} replica${group.n === 1 ? '' : 's'}, ${o.clients} clients`;
    const [p50, p99] = [quantile(all, 0.5), quantile(all, 0.99)];
    rows.push({ section, name, value: rate, unit: 'calls/s', samples: group.samples.map((s) => s.perSec), note: `p50 ${formatMs(p50)}, p99 ${formatMs(p99)}` });
    lines.push(`  ${name.padEnd(26)} ${formatRate(rate).padStart(7)} calls/s  p50 ${formatMs(p50).padStart(9)}  p99 ${formatMs(p99).padStart(9)}`);
  }
  const ratio = rates.get(o.replicas)! / rates.get(1)!;
  const ratios: Ratio[] = [{ label: `Replicas: ${o.replicas} / 1 serve processes on one PostgreSQL, approved calls/s, ${o.clients} clients`, value: ratio, kind: 'ratio' }];
  console.log(`\n## ${section}`);
  for (const line of lines) console.log(line);
  console.log(`  ${o.replicas} / 1: ${formatRatio(ratio)} (one machine: the replicas share its cores with the database and this load generator, so this shows the shared store's cost, not scale-out)`);
  printRatios('Replica ratios', ratios);
  return { rows, ratios };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
