/**
 * Profiling driver (not part of `npm run bench`): the gate in this process over a fresh
 * PostgreSQL schema, no HTTP; N clients run allowed propose + authorize + complete (or
 * propose + dispatch) round trips. Prints load-independent counts per round trip:
 * statements and Postgres round trips per step (a round trip starts when a connection
 * sends with nothing in flight), commits, this process's CPU and the CPU of the
 * Postgres backends serving it (from /proc; same machine only).
 *   node --conditions=countersign-source bench/probes/profile-postgres.ts <clients> <roundTrips> [pac|pd]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { allowTransferGate, BENCH_ARGS } from './allow-transfer-gate.ts';
import { dropSchema } from '../drop-schema.ts';
import { runWorkers } from '../harness.ts';
import { PG_URL } from '../stores.ts';

const [clientsText = '16', nText = '2000', flow = 'pac'] = process.argv.slice(2);
const clients = Number(clientsText);
const n = Number(nText);
const schema = `cs_profile_${randomBytes(6).toString('hex')}`;
const app = `cs-profile-${process.pid}`;
// CS_PG_OPEN: another build's open.ts, to compare two versions of the store in one session.
const { openPostgresStore } = (await import(process.env.CS_PG_OPEN ?? '@countersign/store-postgres')) as typeof import('@countersign/store-postgres');
const store = await openPostgresStore({ connectionString: PG_URL, schema, pool: { max: 16, application_name: app } });
const gate = allowTransferGate(store);
const args = BENCH_ARGS;

// Statements and round trips, per step (the step a worker is in when it sends).
type Step = 'propose' | 'authorize' | 'complete' | 'dispatch';
const counts = new Map<string, { statements: number; trips: number }>();
let currentStep: Step | 'none' = 'none';
const inFlight = new WeakMap<Client, number>();
const original = Client.prototype.query;
Client.prototype.query = function (this: Client, ...a: unknown[]) {
  const step = currentStep;
  const c = counts.get(step) ?? { statements: 0, trips: 0 };
  counts.set(step, c);
  c.statements++;
  if ((inFlight.get(this) ?? 0) === 0) c.trips++;
  const answer = (original as (...x: unknown[]) => unknown).apply(this, a) as Promise<unknown> | undefined;
  if (answer !== undefined && typeof answer.then === 'function') {
    inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
    const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    answer.then(done, done);
  }
  return answer as never;
} as typeof Client.prototype.query;

// Steps are attributed exactly only with one client; with more, by the step that sent.
async function step<T>(name: Step, fn: () => Promise<T>): Promise<T> {
  currentStep = name;
  return fn();
}

async function round(tag: string, count: number) {
  await runWorkers(clients, async (w) => {
    for (let i = w; i < count; i += clients) {
      const p = await step('propose', () => gate.propose({ runId: `${tag}-${w}`, sessionId: 's', principal: 'user:bench', callId: `c${i}`, toolName: 'transfer', arguments: args }));
      if (p.status !== 'allowed') throw new Error(JSON.stringify(p));
      if (flow === 'pd') {
        const d = await step('dispatch', () => gate.dispatch({ proposalId: p.proposalId }));
        if (d.status !== 'executed') throw new Error(JSON.stringify(d));
        continue;
      }
      const a = await step('authorize', () => gate.authorize({ proposalId: p.proposalId }));
      if (a.status !== 'authorized') throw new Error(JSON.stringify(a));
      const c = await step('complete', () => gate.complete(a.grant, { status: 'succeeded', result: { ok: true } }));
      if (!c.ok) throw new Error(JSON.stringify(c));
    }
  });
}

/** CPU (µs) of the Postgres backends serving this process's pool, from /proc (clock ticks of 10 ms). */
async function backendCpuUs(): Promise<number> {
  const probe = new Client({ connectionString: PG_URL });
  await probe.connect();
  const { rows } = await probe.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [app]);
  await probe.end();
  let ticks = 0;
  for (const { pid } of rows as { pid: number }[]) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks * 10_000;
}

try {
  await round('warm', 400);
  counts.clear();
  const c0 = store.durableCommits();
  const pg0 = await backendCpuUs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await round('timed', n);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pg = (await backendCpuUs()) - pg0;
  const per = (x: number) => (x / n).toFixed(2);
  console.log(
    `${flow} ${clients} clients: ${(n / (ms / 1000)).toFixed(0)} rt/s, ${per(store.durableCommits() - c0)} commits/rt, node CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs/rt (user ${(cpu.user / n).toFixed(0)}, sys ${(cpu.system / n).toFixed(0)}), postgres backends CPU ${(pg / n).toFixed(0)} µs/rt`,
  );
  for (const [name, c] of counts) console.log(`  ${name.padEnd(10)} ${per(c.statements)} statements/rt, ${per(c.trips)} round trips/rt`);
} finally {
  Client.prototype.query = original;
  await store.close();
  await dropSchema(PG_URL, schema);
}
