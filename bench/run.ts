/**
 * `npm run bench`: the gate in memory, HTTP round trips and the stores, with ratios
 * against baselines measured in the same run. Prints tables, ends with a summary, and
 * writes bench/results/latest.json. Never a test: nothing here fails on a slow number.
 *
 * `npm run bench -- http` (or `gate`, `stores`, `mcp`, `proxy`, `replicas`, several; `http sqlite` for one store, `http postgres`, `http sqlite-offloop` for the opt-in syncOffLoop mode) runs only those parts.
 * BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the HTTP servers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { benchGateThroughput, type GateThroughputResult } from './gate-throughput.ts';
import { benchHttp, type HttpResult } from './http-throughput.ts';
import { benchMcp, type McpResult } from './mcp-gateway.ts';
import { benchProxy, type ProxyBenchResult } from './proxy-latency.ts';
import { benchReplicas, type ReplicasResult } from './replicas.ts';
import { printRatios } from './report.ts';
import { benchStores, type StoreThroughputResult } from './store-throughput.ts';

const CLIENTS = 32;
const started = performance.now();
const startLoad = loadavg()[0]!;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}`;
console.log(`Countersign bench — ${machine}; load average at start ${startLoad.toFixed(2)}`);

const PARTS = ['gate', 'http', 'stores', 'mcp', 'proxy', 'replicas'] as const;
const asked = process.argv.slice(2).filter((a) => (PARTS as readonly string[]).includes(a));
const runs = (part: (typeof PARTS)[number]) => asked.length === 0 || asked.includes(part);

const EMPTY = { rows: [], ratios: [] };
const partA: GateThroughputResult = runs('gate') ? await benchGateThroughput({ warmupMs: 300, roundMs: 100, rounds: 9 }) : { ...EMPTY, aiSdk: '(c) not run' };
const http: HttpResult = runs('http')
  ? await benchHttp({
      clients: [1, 16],
      rounds: 3,
      roundMs: 700,
      warmupMs: 300,
      // `postgres` too: the store's label is PostgreSQL, and `http postgres` used to run nothing for it.
      only: process.argv
        .slice(2)
        .filter((a) => a === 'memory' || a === 'sqlite' || a === 'sqlite-offloop' || a === 'postgresql' || a === 'postgres')
        .map((a) => (a === 'postgres' ? 'postgresql' : a)),
      serverFlags: (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0),
    })
  : EMPTY;
const mcp: McpResult = runs('mcp')
  ? await benchMcp({
      clients: [1, 16],
      rounds: 3,
      roundMs: 700,
      warmupMs: 300,
      only: process.argv.slice(2).filter((a) => a === 'memory' || a === 'sqlite'),
      serverFlags: (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f.length > 0),
      jitWarmupCalls: Number(process.env.BENCH_MCP_JIT_WARMUP_CALLS ?? 2_000),
      jitWarmupMaxMs: 10_000,
    })
  : EMPTY;
const partB: StoreThroughputResult = runs('stores')
  ? await benchStores({
      clients: CLIENTS,
      rounds: 3,
      approvals: { sqlite: 2_000, postgres: 3_000 },
      appends: { sqlite: 2_000, postgres: 2_000 },
      chainRecords: 200_000,
    })
  : { ...EMPTY, problems: [] };
const proxy: ProxyBenchResult = runs('proxy') ? await benchProxy({ requests: 2_000, warmup: 300 }) : { rows: [], ratios: [] };
const replicas: ReplicasResult = runs('replicas') ? await benchReplicas({ clients: 16, replicas: 3, rounds: 3, roundMs: 3_000, warmupMs: 1_500 }) : EMPTY;

const seconds = (performance.now() - started) / 1000;
const endLoad = loadavg()[0]!;
// The four ratios per size, the AI SDK comparison, then the store figures.
const headline = [
  ...partA.ratios.filter((r) => r.target !== undefined),
  ...http.ratios.filter((r) => r.target !== undefined || r.skipped !== undefined || r.label.includes('disk floor') || r.label.includes('disk ceiling') || (r.label.includes(' / floor') && r.label.endsWith('16 clients')) || r.label.includes(' CPU-bound / bare')),
  ...mcp.ratios.filter((r) => r.target !== undefined || r.skipped !== undefined || (r.label.includes('byte relay') && r.label.includes('p50'))),
  ...partB.ratios,
  ...proxy.ratios.filter((r) => r.target !== undefined),
  ...replicas.ratios,
];
printRatios('Summary', headline);
if (!runs('stores')) {
  console.log('\n  Store rows not run.');
} else if (partB.problems.length > 0) {
  console.log('\n  STORE CORRECTNESS PROBLEMS:');
  for (const p of partB.problems) console.log(`    ${p}`);
} else {
  console.log(`\n  Exactly-once held in every consumption race; every appended chain verified.`);
}
if (runs('gate')) console.log(`  ${partA.aiSdk}`);
console.log('  Part A ratios are medians of per-round ratios (rows interleaved within each round).');
console.log(`  ${seconds.toFixed(0)} s; load average ${startLoad.toFixed(2)} → ${endLoad.toFixed(2)} on ${availableParallelism()} cores (other processes skew absolute numbers; ratios are interleaved in-run)`);

const resultsDir = new URL('./results/', import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  new URL('latest.json', resultsDir),
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      machine,
      loadAverage: { start: startLoad, end: endLoad },
      seconds,
      aiSdk: partA.aiSdk,
      rows: [...partA.rows, ...http.rows, ...mcp.rows, ...partB.rows, ...proxy.rows, ...replicas.rows],
      ratios: [...partA.ratios, ...http.ratios, ...mcp.ratios, ...partB.ratios, ...proxy.ratios, ...replicas.ratios],
      storeProblems: partB.problems,
    },
    null,
    2,
  )}\n`,
);
console.log('  wrote bench/results/latest.json');
