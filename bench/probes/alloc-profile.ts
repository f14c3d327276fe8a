/**
 * Bytes allocated per in-memory dispatch and per propose, and where they are allocated:
 *   node --conditions=countersign-source bench/probes/alloc-profile.ts [dispatch|propose] [200B|10KB] [ops] [top]
 * (10 KB propose allocates ~100-160 KB per op: use 1000 ops or fewer, or the run stops on a GC in the loop.)
 * Bytes/op: the loop runs in a child with a young generation large enough that no GC falls in
 * it (checked: a GC in the loop makes the figure unusable and is reported), so the growth of
 * the used heap is what the loop allocated. Sites: a sampling heap profile (8-byte interval,
 * objects later collected included) of a second loop, summed by allocating function (self).
 */
import { execFileSync } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { allowTransferMemoryGate } from './allow-transfer-gate.ts';
import { ARGUMENT_CASES } from '../arguments.ts';
import { dispatchLoop } from '../gate-cases.ts';
import { bytesBySite } from './heap-sites.ts';

const what = process.argv[2] ?? 'dispatch';
const label = (process.argv[3] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[4] ?? 2000);
const top = Number(process.argv[5] ?? 25);
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);
if (what !== 'dispatch' && what !== 'propose') throw new Error(`what must be dispatch or propose, not ${what}`);

// Re-run in a child whose young generation holds the whole loop (no scavenge, so heap growth = allocation).
if (process.env.ALLOC_PROFILE_CHILD !== '1') {
  const flags = ['--conditions=countersign-source', '--max-semi-space-size=256', '--min-semi-space-size=256', '--expose-gc'];
  execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ALLOC_PROFILE_CHILD: '1' },
  });
  process.exit(0);
}


async function prepare(round: number): Promise<() => Promise<void>> {
  if (what === 'dispatch') return dispatchLoop(arg!.args, ops, `r${round}`);
  const gate = allowTransferMemoryGate();
  const agent = { id: 'bench-agent' };
  const responses = Array.from({ length: ops }, (_, i) => ({
    runId: 'run-bench',
    sessionId: 's',
    principal: 'user:bench',
    toolCalls: [{ id: `r${round}c${i}`, name: 'transfer', arguments: arg!.args }],
  }));
  return async () => {
    for (const response of responses) {
      const [outcome] = await gate.proposeResponse(response, agent);
      if (outcome?.status !== 'allowed') throw new Error(`propose gave ${JSON.stringify(outcome)}`);
    }
  };
}

const gc = (globalThis as { gc?: () => void }).gc!;
// Every GC, with its start time: one inside a timed loop makes that loop's figure too low.
const gcStarts: number[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcStarts.push(entry.startTime);
});
gcObserver.observe({ entryTypes: ['gc'] });
const perOp: number[] = [];
for (let round = 0; round < 5; round++) {
  const loop = await prepare(round);
  gc();
  gc();
  const before = getHeapStatistics();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await loop();
  const ended = performance.now();
  const cpuUsed = process.cpuUsage(cpu);
  const after = getHeapStatistics();
  // GC entries arrive a turn or more later.
  await new Promise((resolve) => setTimeout(resolve, 50));
  if (gcStarts.some((t) => t >= started && t < ended)) {
    throw new Error(`a GC ran inside round ${round}'s loop: its bytes/op would read low; run fewer ops (now ${ops})`);
  }
  // A scavenge inside the loop shows as fewer bytes than were allocated: count on the young generation staying put.
  const grown = after.used_heap_size - before.used_heap_size;
  gc();
  const kept = getHeapStatistics().used_heap_size - before.used_heap_size;
  perOp.push(grown / ops);
  console.log(
    `round ${round}: ${what} ${arg.label}: ${(grown / ops).toFixed(0)} B/op allocated, ${(kept / ops).toFixed(0)} B/op kept after a full GC, ${((cpuUsed.user + cpuUsed.system) / ops).toFixed(2)} µs/op CPU (no GC in the loop: not a timing bench)`,
  );
}
gcObserver.disconnect();
perOp.sort((a, b) => a - b);
console.log(`median ${what} ${arg.label}: ${perOp[2]!.toFixed(0)} B/op (rounds 0-4; round 0 includes warm-up)`);

// Where: sampling heap profile of one more loop, objects collected by minor and major GC included.
const loop = await prepare(99);
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 8, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
await loop();
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

const { total, sites } = bytesBySite(profile.head);
console.log(`sampled: ${(total / ops).toFixed(0)} B/op; top ${top} allocating functions (self, B/op):`);
for (const [site, bytes] of sites.slice(0, top)) console.log(`${(bytes / ops).toFixed(0).padStart(7)}  ${site}`);
