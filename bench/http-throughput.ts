import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { bareThree, bareTwo, type Flow, JsonClient, proposeAuthorizeComplete, proposeDispatch } from './http-flows.ts';
import { runWorkers } from './harness.ts';
import { formatMs, formatRate, formatRatio, printRatios, type Ratio, type Row } from './report.ts';
import { type CommitLatency, sqliteCommitLatency } from './sqlite-commit-latency.ts';
import { median } from './stats.ts';
import { PG_URL } from './stores.ts';

export interface HttpOptions {
  clients: readonly number[];
  rounds: number;
  /** Wall time of one timed run of one row. */
  roundMs: number;
  warmupMs: number;
  /** Extra node flags for the server child, e.g. `--cpu-prof` (BENCH_SERVER_FLAGS). */
  serverFlags: readonly string[];
  /** Only these stores (labels, lower case); all when empty. */
  only?: readonly string[] | undefined;
}

export interface HttpResult {
  rows: Row[];
  ratios: Ratio[];
}

interface Cell {
  name: string;
  flow: Flow;
  posts: number;
  server: 'countersign' | 'bare';
}

const CELLS: readonly Cell[] = [
  { name: 'propose + authorize + complete', flow: proposeAuthorizeComplete, posts: 3, server: 'countersign' },
  { name: 'bare Hono, 3 JSON POSTs', flow: bareThree, posts: 3, server: 'bare' },
  { name: 'propose + dispatch', flow: proposeDispatch, posts: 2, server: 'countersign' },
  { name: 'bare Hono, 2 JSON POSTs', flow: bareTwo, posts: 2, server: 'bare' },
];

interface Sample {
  perSec: number;
  latencies: number[];
  serverCpuUs: number;
  clientCpuUs: number;
  /** The Postgres backends' CPU per round trip (same machine only), else undefined. */
  dbCpuUs: number | undefined;
  /** The store's durable commits per round trip, undefined without a durable store. */
  commits: number | undefined;
}

interface Targets {
  ratio16?: number;
  p99Ms?: number;
  p50Ms1?: number;
}

// Sequential durable commits in one round trip, both flows: propose; authorize (consume +
// its record) or dispatch's consume; complete (result + its record). The consume must be on
// disk before the tool runs, so these cannot overlap.
const DURABLE_COMMITS_PER_ROUND_TRIP = 3;
const COMMIT_SAMPLES = 200;

const STORES = [
  { label: 'memory', args: ['memory'], what: 'MemoryLedger + MemoryAuditLog, no durability: the HTTP stack and the gate alone', targets: {} as Targets },
  { label: 'SQLite', args: ['sqlite'], what: 'temp file, WAL, synchronous=FULL', targets: { ratio16: 0.5, p99Ms: 15, p50Ms1: 1 } as Targets },
  {
    label: 'SQLite-offloop',
    args: ['sqlite-offloop'],
    what: 'opt-in syncOffLoop: synchronous=NORMAL + our own fdatasync of the WAL on the thread pool before any reply',
    targets: { ratio16: 0.5, p99Ms: 15, p50Ms1: 1 } as Targets,
  },
  { label: 'PostgreSQL', args: ['postgres', PG_URL], what: 'fresh schema, pool 16', targets: { ratio16: 0.35 } as Targets },
];

/**
 * Issue 8: round trips over HTTP against a bare Hono server doing the same number of
 * JSON POSTs, in the same run, interleaved round by round. Servers run in a child
 * process; the load generator is this process.
 */
export async function benchHttp(o: HttpOptions): Promise<HttpResult> {
  const rows: Row[] = [];
  const ratios: Ratio[] = [];
  for (const store of STORES) {
    if (o.only !== undefined && o.only.length > 0 && !o.only.includes(store.label.toLowerCase())) continue;
    const section = `HTTP, ${store.label} (${store.what}), allowed-by-policy calls, 200 B args, median of ${o.rounds} rounds`;
    const child = await startChild(store.args, o.serverFlags);
    if (!child.ok) {
      console.log(`\n## ${section}\n  skipped: ${child.reason}`);
      rows.push({ section, name: `${store.label}: HTTP round trips`, unit: 'round trips/s', skipped: child.reason });
      ratios.push({ label: `HTTP ${store.label} propose+authorize+complete / bare, 16 clients`, value: undefined, kind: 'ratio', skipped: child.reason });
      continue;
    }
    try {
      const lines: string[] = [];
      for (const clients of o.clients) {
        // What the disk allows, measured just before and just after these rows (same disk, same
        // load): one fdatasync'd SQLite commit with the store's settings, alone.
        const onSqliteDisk = store.label.startsWith('SQLite');
        const commitsBefore = onSqliteDisk ? sqliteCommitLatency(COMMIT_SAMPLES) : undefined;
        const measured = await measureClients(child, clients, o);
        const commitsAfter = onSqliteDisk ? sqliteCommitLatency(COMMIT_SAMPLES) : undefined;
        for (const cell of CELLS) {
          const s = measured.get(cell)!;
          const all = s.flatMap((x) => x.latencies).sort((a, b) => a - b);
          const rate = median(s.map((x) => x.perSec));
          const dbCpu = cell.server === 'countersign' ? medianOf(s.map((x) => x.dbCpuUs)) : undefined;
          const commits = cell.server === 'countersign' ? medianOf(s.map((x) => x.commits)) : undefined;
          const extra = `${dbCpu === undefined ? '' : `  database CPU ${String(Math.round(dbCpu)).padStart(4)} µs/rt`}${commits === undefined ? '' : `  ${commits.toFixed(2)} commits/rt`}`;
          const name = `${cell.name}, ${clients} client${clients === 1 ? '' : 's'}`;
          const row: Row = {
            section,
            name,
            value: rate,
            unit: 'round trips/s',
            samples: s.map((x) => x.perSec),
            note: `p50 ${formatMs(quantile(all, 0.5))}, p99 ${formatMs(quantile(all, 0.99))}; server CPU ${Math.round(median(s.map((x) => x.serverCpuUs)))} µs, client CPU ${Math.round(median(s.map((x) => x.clientCpuUs)))} µs per round trip${dbCpu === undefined ? '' : `, database CPU ${Math.round(dbCpu)} µs`}${commits === undefined ? '' : `, ${commits.toFixed(2)} durable commits`}`,
          };
          rows.push(row);
          lines.push(
            `  ${name.padEnd(44)} ${formatRate(rate).padStart(7)} rt/s  p50 ${formatMs(quantile(all, 0.5)).padStart(9)}  p99 ${formatMs(quantile(all, 0.99)).padStart(9)}  server CPU ${String(Math.round(median(s.map((x) => x.serverCpuUs)))).padStart(5)} µs/rt  client CPU ${String(Math.round(median(s.map((x) => x.clientCpuUs)))).padStart(4)} µs/rt${extra}`,
          );
        }
        const [pac, bare3, pd, bare2] = CELLS.map((c) => measured.get(c)!);
        const p = (s: Sample[], q: number) => quantile(s.flatMap((x) => x.latencies).sort((a, b) => a - b), q);
        const at = `${clients} client${clients === 1 ? '' : 's'}`;
        const multi = clients > 1;
        ratios.push(
          { label: `HTTP ${store.label} propose+authorize+complete / bare 3 POSTs, ${at}`, value: perRound(pac!, bare3!), kind: 'ratio', target: multi ? store.targets.ratio16 : undefined },
          { label: `HTTP ${store.label} propose+dispatch / bare 2 POSTs, ${at}`, value: perRound(pd!, bare2!), kind: 'ratio', target: multi ? store.targets.ratio16 : undefined },
          {
            label: `HTTP ${store.label} propose+authorize+complete p50, ${at}`,
            value: p(pac!, 0.5),
            kind: 'ms',
            atMost: true,
            target: multi ? undefined : store.targets.p50Ms1,
          },
          { label: `HTTP ${store.label} propose+authorize+complete p99, ${at}`, value: p(pac!, 0.99), kind: 'ms', atMost: true, target: multi ? store.targets.p99Ms : undefined },
          { label: `HTTP ${store.label} propose+dispatch p50, ${at}`, value: p(pd!, 0.5), kind: 'ms', atMost: true, target: multi ? undefined : store.targets.p50Ms1 },
          { label: `HTTP ${store.label} propose+dispatch p99, ${at}`, value: p(pd!, 0.99), kind: 'ms', atMost: true, target: multi ? store.targets.p99Ms : undefined },
        );
        if (commitsBefore !== undefined && commitsAfter !== undefined) {
          const bound = diskBound(store.label, clients, commitsBefore, commitsAfter, { three: median(bare3!.map((x) => x.perSec)), two: median(bare2!.map((x) => x.perSec)) });
          lines.push(...bound.lines);
          ratios.push(...bound.ratios);
        }
      }
      console.log(`\n## ${section}`);
      for (const line of lines) console.log(line);
      console.log(
        "    rt = one tool call's round trip (2 or 3 sequential POSTs); latency per round trip; CPU = process CPU time / round trips, median of rounds (database CPU: the Postgres backends serving the store, from /proc; commits: the store's durable commits)",
      );
      printRatios(`HTTP ratios, ${store.label} (per-round medians)`, ratios.filter((r) => r.label.startsWith(`HTTP ${store.label} `)));
    } finally {
      await child.stop();
    }
  }
  return { rows, ratios };
}

interface ChildUsage {
  cpu: number;
  commits?: number | undefined;
  dbCpuUs?: number | undefined;
}

interface ChildHandle {
  ok: true;
  ports: { countersign: number; bare: number };
  usage(): Promise<ChildUsage>;
  stop(): Promise<void>;
}

async function startChild(args: readonly string[], flags: readonly string[]): Promise<ChildHandle | { ok: false; reason: string }> {
  const child: ChildProcess = fork(new URL('./http-server-child.ts', import.meta.url), [...args], {
    execArgv: ['--conditions=countersign-source', ...flags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [first] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [{ failed: 'server process exited' }])])) as [
    { ready?: true; ports?: { countersign: number; bare: number }; failed?: string },
  ];
  if (first.failed !== undefined || first.ports === undefined) {
    child.kill();
    return { ok: false, reason: first.failed ?? 'server process did not start' };
  }
  return {
    ok: true,
    ports: first.ports,
    usage: async () => {
      child.send('cpu');
      const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; commits?: number; dbCpuUs?: number }];
      return { cpu: answer.cpu.user + answer.cpu.system, commits: answer.commits, dbCpuUs: answer.dbCpuUs };
    },
    stop: async () => {
      child.send('stop');
      await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    },
  };
}

let runCounter = 0;

/** Every cell at `clients` clients: a warm-up, then `rounds` timed runs, interleaved. */
async function measureClients(child: ChildHandle, clients: number, o: HttpOptions): Promise<Map<Cell, Sample[]>> {
  const http = { countersign: new JsonClient(child.ports.countersign, clients), bare: new JsonClient(child.ports.bare, clients) };
  try {
    for (const cell of CELLS) await runFor(child, http[cell.server], cell.flow, clients, o.warmupMs);
    const out = new Map<Cell, Sample[]>(CELLS.map((c) => [c, []]));
    for (let round = 0; round < o.rounds; round++) {
      for (let i = 0; i < CELLS.length; i++) {
        const cell = CELLS[(round + i) % CELLS.length]!;
        out.get(cell)!.push(await runFor(child, http[cell.server], cell.flow, clients, o.roundMs));
      }
    }
    return out;
  } finally {
    http.countersign.close();
    http.bare.close();
  }
}

/** `clients` workers run round trips back to back for `ms`; each round trip is timed. */
async function runFor(child: ChildHandle, client: JsonClient, flow: Flow, clients: number, ms: number): Promise<Sample> {
  const latencies: number[] = [];
  const run = runCounter++;
  const serverBefore = await child.usage();
  const clientBefore = process.cpuUsage();
  const start = performance.now();
  const deadline = start + ms;
  await runWorkers(clients, async (w) => {
    const runId = `run-${run}-${w}`;
    for (let i = 0; performance.now() < deadline; i++) {
      const t = performance.now();
      await flow(client, `call-${i}`, runId);
      latencies.push(performance.now() - t);
    }
  });
  const elapsed = performance.now() - start;
  const clientCpu = process.cpuUsage(clientBefore);
  const serverAfter = await child.usage();
  const n = latencies.length;
  const per = (before: number | undefined, after: number | undefined) => (before === undefined || after === undefined ? undefined : (after - before) / n);
  return {
    perSec: n / (elapsed / 1000),
    latencies,
    serverCpuUs: (serverAfter.cpu - serverBefore.cpu) / n,
    clientCpuUs: (clientCpu.user + clientCpu.system) / n,
    dbCpuUs: per(serverBefore.dbCpuUs, serverAfter.dbCpuUs),
    commits: per(serverBefore.commits, serverAfter.commits),
  };
}

/** The median of the defined values, undefined if there are none. */
function medianOf(values: readonly (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : median(defined);
}

function perRound(a: Sample[], b: Sample[]): number {
  return median(a.map((x, i) => x.perSec / b[i]!.perSec));
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * What the disk alone allows, from one commit's p50 (median of before and after): at 1 client
 * a latency floor (3 sequential commits); at N clients a throughput ceiling, N round trips per
 * 3 commit times, which assumes the best batching (every client's write in every commit) and no
 * CPU at all. Printed beside the rows, and as ratios to the bare server's rates.
 */
function diskBound(label: string, clients: number, before: CommitLatency, after: CommitLatency, bare: { three: number; two: number }): { lines: string[]; ratios: Ratio[] } {
  const commitP50 = median([before.sqlite.p50, after.sqlite.p50]);
  const at = `${clients} client${clients === 1 ? '' : 's'}`;
  const lines = [
    `  disk, ${at}: one durable SQLite commit (WAL, synchronous=FULL, alone) p50 ${formatMs(before.sqlite.p50)} before / ${formatMs(after.sqlite.p50)} after these rows (p99 ${formatMs(Math.max(before.sqlite.p99, after.sqlite.p99))}); bare 16 KiB append + fdatasync p50 ${formatMs(median([before.fdatasync.p50, after.fdatasync.p50]))}`,
  ];
  const ratios: Ratio[] = [{ label: `HTTP ${label} one durable commit alone p50, ${at} (same disk, same run)`, value: commitP50, kind: 'ms' }];
  const floorMs = DURABLE_COMMITS_PER_ROUND_TRIP * commitP50;
  if (clients === 1) {
    lines.push(`    → ${DURABLE_COMMITS_PER_ROUND_TRIP} sequential durable commits per round trip: no durable 1-client p50 below ${formatMs(floorMs)} on this disk now`);
    ratios.push({ label: `HTTP ${label} disk floor of a 1-client round trip (${DURABLE_COMMITS_PER_ROUND_TRIP} × commit p50)`, value: floorMs, kind: 'ms' });
    return { lines, ratios };
  }
  const ceiling = clients / (floorMs / 1000);
  lines.push(
    `    → at most ${clients} round trips per ${DURABLE_COMMITS_PER_ROUND_TRIP} commit times: ${formatRate(ceiling)} rt/s with perfect batching and no CPU = ${formatRatio(ceiling / bare.three)} bare 3 POSTs, ${formatRatio(ceiling / bare.two)} bare 2 POSTs`,
  );
  ratios.push(
    { label: `HTTP ${label} disk ceiling / bare 3 POSTs, ${at} (perfect batching, no CPU)`, value: ceiling / bare.three, kind: 'ratio' },
    { label: `HTTP ${label} disk ceiling / bare 2 POSTs, ${at} (perfect batching, no CPU)`, value: ceiling / bare.two, kind: 'ratio' },
  );
  return { lines, ratios };
}
