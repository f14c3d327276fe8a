/**
 * `npm run bench`: throughput of the gate and the stores, with ratios against
 * baselines measured in the same run. Prints tables, ends with a summary, and
 * writes bench/results/latest.json. Never a test: nothing here fails on a slow number.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { benchGateThroughput } from './gate-throughput.ts';
import { printRatios } from './report.ts';
import { benchStores } from './store-throughput.ts';

const CLIENTS = 32;
const started = performance.now();
const startLoad = loadavg()[0]!;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}`;
console.log(`Countersign bench — ${machine}; load average at start ${startLoad.toFixed(2)}`);

const partA = await benchGateThroughput({ warmupMs: 300, roundMs: 100, rounds: 9 });
const partB = await benchStores({
  clients: CLIENTS,
  rounds: 3,
  approvals: { sqlite: 2_000, postgres: 3_000 },
  appends: { sqlite: 2_000, postgres: 2_000 },
  chainRecords: 200_000,
});

const seconds = (performance.now() - started) / 1000;
const endLoad = loadavg()[0]!;
// The four ratios per size, the AI SDK comparison, then the store figures.
const headline = [
  ...partA.ratios.filter((r) => /^(gate|verify-only)\/(bare|jose|ai-sdk \(c\)),/.test(r.label)),
  ...partB.ratios,
];
printRatios('Summary', headline);
if (partB.problems.length > 0) {
  console.log('\n  STORE CORRECTNESS PROBLEMS:');
  for (const p of partB.problems) console.log(`    ${p}`);
} else {
  console.log(`\n  Exactly-once held in every consumption race; every appended chain verified.`);
}
console.log(`  ${partA.aiSdk}`);
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
      rows: [...partA.rows, ...partB.rows],
      ratios: [...partA.ratios, ...partB.ratios],
      storeProblems: partB.problems,
    },
    null,
    2,
  )}\n`,
);
console.log('  wrote bench/results/latest.json');
