import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { bareThree, bareTwo, type Flow, floorAuthorizedTwo, floorThree, floorTwo, JsonClient, proposeAuthorizeComplete, proposeAuthorizedComplete, proposeDispatch } from './http-flows.ts';
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

type ServerName = 'countersign' | 'bare' | 'floor' | 'around';

interface Cell {
  name: string;
  flow: Flow;
  posts: number;
  server: ServerName;
}

// The floor rows (http-floor-server.ts) run only beside a durable store: bare Hono plus the
// minimum durable writes of call-bound authorization, the bound on what any implementation
// keeping the issue's durability reaches on this machine.
const CELLS: readonly Cell[] = [
  { name: 'propose + authorize + complete', flow: proposeAuthorizeComplete, posts: 3, server: 'countersign' },
  { name: 'bare Hono, 3 JSON POSTs', flow: bareThree, posts: 3, server: 'bare' },
  { name: 'floor: bare Hono + minimum durable writes, 3 POSTs', flow: floorThree, posts: 3, server: 'floor' },
  { name: 'propose + dispatch', flow: proposeDispatch, posts: 2, server: 'countersign' },
  { name: 'bare Hono, 2 JSON POSTs', flow: bareTwo, posts: 2, server: 'bare' },
  { name: 'floor: bare Hono + minimum durable writes, 2 POSTs', flow: floorTwo, posts: 2, server: 'floor' },
  { name: 'propose+authorize in one step + complete', flow: proposeAuthorizedComplete, posts: 2, server: 'countersign' },
  { name: 'floor: proposal recorded consumed (1 commit) + result, 2 POSTs', flow: floorAuthorizedTwo, posts: 2, server: 'floor' },
  // Many clients only: the same app with the gate's calls answered from memory (gate-answered-from-memory.ts).
  { name: 'around the gate: propose + authorize + complete, gate answered from memory', flow: proposeAuthorizeComplete, posts: 3, server: 'around' },
  { name: 'around the gate: propose + dispatch, gate answered from memory', flow: proposeDispatch, posts: 2, server: 'around' },
];
const [PAC, BARE3, FLOOR3, PD, BARE2, FLOOR2, PA1C, FLOOR1C, AROUND_PAC, AROUND_PD] = CELLS as [Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell];

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
        const cells = CELLS.filter((c) => child.ports[c.server] !== undefined && (c.server !== 'around' || clients > 1));
        const measured = await measureClients(child, cells, clients, o);
        const commitsAfter = onSqliteDisk ? sqliteCommitLatency(COMMIT_SAMPLES) : undefined;
        for (const cell of cells) {
          const s = measured.get(cell)!;
          const all = s.flatMap((x) => x.latencies).sort((a, b) => a - b);
          const rate = median(s.map((x) => x.perSec));
          const dbCpu = medianOf(s.map((x) => x.dbCpuUs));
          const commits = medianOf(s.map((x) => x.commits));
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
            `  ${name.padEnd(62)} ${formatRate(rate).padStart(7)} rt/s  p50 ${formatMs(quantile(all, 0.5)).padStart(9)}  p99 ${formatMs(quantile(all, 0.99)).padStart(9)}  server CPU ${String(Math.round(median(s.map((x) => x.serverCpuUs)))).padStart(5)} µs/rt  client CPU ${String(Math.round(median(s.map((x) => x.clientCpuUs)))).padStart(4)} µs/rt${extra}`,
          );
        }
        const [pac, bare3, pd, bare2] = [PAC, BARE3, PD, BARE2].map((c) => measured.get(c)!);
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
        if (multi) {
          ratios.push(
            { label: `HTTP ${store.label} propose+authorize+complete CPU-bound / bare 3 POSTs, ${at} (${CPU_BOUND})`, value: cpuBound(pac!, bare3!), kind: 'ratio' },
            { label: `HTTP ${store.label} propose+dispatch CPU-bound / bare 2 POSTs, ${at} (${CPU_BOUND})`, value: cpuBound(pd!, bare2!), kind: 'ratio' },
          );
        }
        ratios.push(...oneStepRatios(store.label, clients, measured.get(PA1C)!, bare2!, measured.get(FLOOR1C)));
        const [floor3, floor2] = [measured.get(FLOOR3), measured.get(FLOOR2)];
        if (floor3 !== undefined && floor2 !== undefined) {
          const reach = floorReach(store.label, clients, store.targets, { pac: pac!, bare3: bare3!, floor3, pd: pd!, bare2: bare2!, floor2 });
          lines.push(...reach.lines);
          ratios.push(...reach.ratios);
        }
        const [aroundPac, aroundPd] = [measured.get(AROUND_PAC), measured.get(AROUND_PD)];
        if (aroundPac !== undefined && aroundPd !== undefined) {
          ratios.push(...aroundTheGateRatios(store.label, clients, { pac: pac!, pd: pd!, aroundPac, aroundPd, three: floor3 ?? bare3!, two: floor2 ?? bare2! }, floor3 !== undefined));
        }
        if (commitsBefore !== undefined && commitsAfter !== undefined) {
          const bound = diskBound(store.label, clients, commitsBefore, commitsAfter, { three: median(bare3!.map((x) => x.perSec)), two: median(bare2!.map((x) => x.perSec)) });
          lines.push(...bound.lines);
          ratios.push(...bound.ratios);
        }
      }
      console.log(`\n## ${section}`);
      for (const line of lines) console.log(line);
      console.log(
        "    rt = one tool call's round trip (2 or 3 sequential POSTs); latency per round trip; CPU = process CPU time / round trips, median of rounds (database CPU: the Postgres backends serving the store or the floor, from /proc; commits: the store's or the floor's durable commits). floor = bare Hono + the minimum durable writes (proposal; consume before the tool runs; result), no gate or audit: what no implementation keeping that durability can skip",
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
  floorCommits?: number | undefined;
  floorDbCpuUs?: number | undefined;
}

interface ChildHandle {
  ok: true;
  /** `floor` only beside a durable store. */
  ports: { countersign: number; bare: number; around: number; floor?: number | undefined };
  usage(): Promise<ChildUsage>;
  stop(): Promise<void>;
}

async function startChild(args: readonly string[], flags: readonly string[]): Promise<ChildHandle | { ok: false; reason: string }> {
  const child: ChildProcess = fork(new URL('./http-server-child.ts', import.meta.url), [...args], {
    execArgv: ['--conditions=countersign-source', ...flags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [first] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [{ failed: 'server process exited' }])])) as [
    { ready?: true; ports?: ChildHandle['ports']; failed?: string },
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
      const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage } & Omit<ChildUsage, 'cpu'>];
      return { ...answer, cpu: answer.cpu.user + answer.cpu.system };
    },
    stop: async () => {
      child.send('stop');
      await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    },
  };
}

let runCounter = 0;

/** Every cell at `clients` clients: a warm-up, then `rounds` timed runs, interleaved. */
async function measureClients(child: ChildHandle, cells: readonly Cell[], clients: number, o: HttpOptions): Promise<Map<Cell, Sample[]>> {
  const http = new Map<ServerName, JsonClient>();
  for (const cell of cells) if (!http.has(cell.server)) http.set(cell.server, new JsonClient(child.ports[cell.server]!, clients));
  try {
    for (const cell of cells) await runFor(child, http.get(cell.server)!, cell, clients, o.warmupMs);
    const out = new Map<Cell, Sample[]>(cells.map((c) => [c, []]));
    for (let round = 0; round < o.rounds; round++) {
      for (let i = 0; i < cells.length; i++) {
        const cell = cells[(round + i) % cells.length]!;
        out.get(cell)!.push(await runFor(child, http.get(cell.server)!, cell, clients, o.roundMs));
      }
    }
    return out;
  } finally {
    for (const client of http.values()) client.close();
  }
}

/** The commit and database CPU counters that belong to `server` (none for the bare server). */
function countersOf(server: ServerName, usage: ChildUsage): { commits: number | undefined; dbCpuUs: number | undefined } {
  if (server === 'countersign') return { commits: usage.commits, dbCpuUs: usage.dbCpuUs };
  if (server === 'floor') return { commits: usage.floorCommits, dbCpuUs: usage.floorDbCpuUs };
  return { commits: undefined, dbCpuUs: undefined };
}

/** `clients` workers run round trips of `cell` back to back for `ms`; each round trip is timed. */
async function runFor(child: ChildHandle, client: JsonClient, cell: Cell, clients: number, ms: number): Promise<Sample> {
  const { flow } = cell;
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
  const [countedBefore, countedAfter] = [countersOf(cell.server, serverBefore), countersOf(cell.server, serverAfter)];
  return {
    perSec: n / (elapsed / 1000),
    latencies,
    serverCpuUs: (serverAfter.cpu - serverBefore.cpu) / n,
    clientCpuUs: (clientCpu.user + clientCpu.system) / n,
    dbCpuUs: per(countedBefore.dbCpuUs, countedAfter.dbCpuUs),
    commits: per(countedBefore.commits, countedAfter.commits),
  };
}

/**
 * Propose-and-authorize in one step, then complete: two durable commits per round trip.
 * Against bare Hono's 2 POSTs and, beside a durable store, against its own floor (the
 * proposal recorded consumed in one commit, then the result).
 */
function oneStepRatios(label: string, clients: number, ours: Sample[], bare: Sample[], floor: Sample[] | undefined): Ratio[] {
  const at = `${clients} client${clients === 1 ? '' : 's'}`;
  const p = (x: Sample[], q: number) => quantile(x.flatMap((y) => y.latencies).sort((a, b) => a - b), q);
  const name = 'propose+authorize (one step)+complete';
  const ratios: Ratio[] = [
    { label: `HTTP ${label} ${name} / bare 2 POSTs, ${at}`, value: perRound(ours, bare), kind: 'ratio' },
    { label: `HTTP ${label} ${name} p50, ${at}`, value: p(ours, 0.5), kind: 'ms', atMost: true },
    { label: `HTTP ${label} ${name} p99, ${at}`, value: p(ours, 0.99), kind: 'ms', atMost: true },
  ];
  if (floor === undefined) return ratios;
  const floorName = 'floor one-step 2 POSTs';
  ratios.push(
    { label: `HTTP ${label} ${name} / ${floorName}, ${at}`, value: perRound(ours, floor), kind: 'ratio' },
    { label: `HTTP ${label} ${floorName} p50, ${at}`, value: p(floor, 0.5), kind: 'ms', atMost: true, floor: true },
    { label: `HTTP ${label} ${floorName} p99, ${at}`, value: p(floor, 0.99), kind: 'ms', atMost: true, floor: true },
    { label: `HTTP ${label} server CPU per round trip, ${name} / ${floorName}, ${at}`, value: cpu(ours) / cpu(floor), kind: 'ratio' },
  );
  return ratios;
}

interface FlowSamples {
  pac: Sample[];
  bare3: Sample[];
  floor3: Sample[];
  pd: Sample[];
  bare2: Sample[];
  floor2: Sample[];
}

/**
 * The floor against the issue's targets, beside Countersign: the floor's rate / bare's (the
 * 16-client target), its p50 (the 1-client target) and p99, Countersign / floor, and both
 * servers' CPU per round trip. Where the floor misses a target, no implementation keeping
 * the same durable commits reaches it on this machine now, and the line says so.
 */
function floorReach(label: string, clients: number, targets: Targets, s: FlowSamples): { lines: string[]; ratios: Ratio[] } {
  const at = `${clients} client${clients === 1 ? '' : 's'}`;
  const multi = clients > 1;
  const lines: string[] = [];
  const ratios: Ratio[] = [];
  const p = (x: Sample[], q: number) => quantile(x.flatMap((y) => y.latencies).sort((a, b) => a - b), q);
  const flows = [
    { ours: 'propose+authorize+complete', posts: 3, cs: s.pac, bare: s.bare3, floor: s.floor3 },
    { ours: 'propose+dispatch', posts: 2, cs: s.pd, bare: s.bare2, floor: s.floor2 },
  ];
  for (const f of flows) {
    const floorName = `floor ${f.posts} POSTs`;
    const floorRatio = perRound(f.floor, f.bare);
    const oursRatio = perRound(f.cs, f.bare);
    const [floorP50, floorP99] = [p(f.floor, 0.5), p(f.floor, 0.99)];
    ratios.push(
      { label: `HTTP ${label} ${floorName} / bare ${f.posts} POSTs, ${at}`, value: floorRatio, kind: 'ratio', target: multi ? targets.ratio16 : undefined, floor: true },
      { label: `HTTP ${label} ${f.ours} / ${floorName}, ${at}`, value: perRound(f.cs, f.floor), kind: 'ratio' },
      { label: `HTTP ${label} ${floorName} p50, ${at}`, value: floorP50, kind: 'ms', atMost: true, target: multi ? undefined : targets.p50Ms1, floor: true },
      { label: `HTTP ${label} ${floorName} p99, ${at}`, value: floorP99, kind: 'ms', atMost: true, target: multi ? targets.p99Ms : undefined, floor: true },
      { label: `HTTP ${label} server CPU per round trip, ${f.ours} / ${floorName}, ${at}`, value: cpu(f.cs) / cpu(f.floor), kind: 'ratio' },
    );
    const floorCpuBound = cpuBound(f.floor, f.bare);
    if (multi) ratios.push({ label: `HTTP ${label} ${floorName} CPU-bound / bare ${f.posts} POSTs, ${at} (${CPU_BOUND})`, value: floorCpuBound, kind: 'ratio' });
    const reach = (met: boolean) => (met ? 'the floor reaches it' : "target below this machine's floor: out of reach here now");
    const checks: string[] = [];
    if (multi && targets.ratio16 !== undefined) {
      checks.push(`${formatRatio(floorRatio)} bare (target ≥ ${formatRatio(targets.ratio16)}: ${reach(floorRatio >= targets.ratio16)}; Countersign ${formatRatio(oursRatio)})`);
      // What the cores alone allow, whatever the disk does now.
      checks.push(`CPU-bound ${formatRatio(floorCpuBound)} bare (Countersign ${formatRatio(cpuBound(f.cs, f.bare))})`);
    }
    if (!multi && targets.p50Ms1 !== undefined) {
      checks.push(`p50 ${formatMs(floorP50)} (target ≤ ${formatMs(targets.p50Ms1)}: ${reach(floorP50 <= targets.p50Ms1)}; Countersign ${formatMs(p(f.cs, 0.5))})`);
    }
    if (multi && targets.p99Ms !== undefined) {
      checks.push(`p99 ${formatMs(floorP99)} (target ≤ ${formatMs(targets.p99Ms)}: ${reach(floorP99 <= targets.p99Ms)}; Countersign ${formatMs(p(f.cs, 0.99))})`);
    }
    lines.push(
      `  floor, ${f.posts} POSTs, ${at}: ${checks.length > 0 ? `${checks.join('; ')}; ` : ''}Countersign = ${formatRatio(perRound(f.cs, f.floor))} the floor's rate; server CPU ${Math.round(cpu(f.cs))} µs/rt vs the floor's ${Math.round(cpu(f.floor))} µs/rt`,
    );
  }
  return { lines, ratios };
}

/** The median of the defined values, undefined if there are none. */
/**
 * What a round trip costs besides the gate and its store: the server CPU of the same app
 * with the gate answered from memory, against the durable floor (bare Hono beside the
 * memory store) and as a share of ours. Where it is near the floor, 2 × floor leaves the
 * gate and its store about one floor's CPU per round trip.
 */
function aroundTheGateRatios(label: string, clients: number, s: { pac: Sample[]; pd: Sample[]; aroundPac: Sample[]; aroundPd: Sample[]; three: Sample[]; two: Sample[] }, durable: boolean): Ratio[] {
  const at = `${clients} clients`;
  const [three, two] = durable ? ['floor 3 POSTs', 'floor 2 POSTs'] : ['bare 3 POSTs', 'bare 2 POSTs'];
  const around = 'around the gate (its calls answered from memory)';
  return [
    { label: `HTTP ${label} server CPU per round trip, ${around}, propose+authorize+complete / ${three}, ${at}`, value: cpu(s.aroundPac) / cpu(s.three), kind: 'ratio' },
    { label: `HTTP ${label} server CPU per round trip, ${around}, propose+dispatch / ${two}, ${at}`, value: cpu(s.aroundPd) / cpu(s.two), kind: 'ratio' },
    { label: `HTTP ${label} server CPU per round trip, ${around} / ours, propose+authorize+complete, ${at}`, value: cpu(s.aroundPac) / cpu(s.pac), kind: 'ratio' },
    { label: `HTTP ${label} server CPU per round trip, ${around} / ours, propose+dispatch, ${at}`, value: cpu(s.aroundPd) / cpu(s.pd), kind: 'ratio' },
  ];
}

function medianOf(values: readonly (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : median(defined);
}

const CPU_BOUND = "cores only: bare's CPU / this CPU, all processes";

/**
 * The ratio `a` would reach against `b` if the machine's cores were the only limit (no wait
 * for the disk or the network): the CPU `b` spends per round trip over the CPU `a` spends,
 * counting every process on the machine that works for it (server, load generator, Postgres
 * backends). Per-round median. It does not move with the disk's latency, which the other
 * helpers' fsyncs push around from one minute to the next.
 */
/** The median of the rounds' server CPU per round trip (µs). */
function cpu(samples: Sample[]): number {
  return median(samples.map((s) => s.serverCpuUs));
}

function cpuBound(a: Sample[], b: Sample[]): number {
  const total = (x: Sample) => x.serverCpuUs + x.clientCpuUs + (x.dbCpuUs ?? 0);
  return median(a.map((x, i) => total(b[i]!) / total(x)));
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
