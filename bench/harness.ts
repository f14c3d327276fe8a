import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median } from './stats.ts';

/** The timed body: performs exactly the operations it was prepared for. */
export type Body = () => unknown;

/**
 * One row of a throughput table. `prepare(ops)` does the untimed setup for `ops`
 * operations (e.g. creating single-use approvals) and returns the body to time.
 */
export interface BenchCase {
  name: string;
  /** What one operation does, printed under the table so the comparison can be judged. */
  note: string;
  prepare(ops: number): Body | Promise<Body>;
}

export interface CaseResult {
  name: string;
  note: string;
  /** Median over the rounds. */
  opsPerSec: number;
  /** ops/s of every round, in round order. */
  samples: number[];
  opsPerRound: number;
}

export interface RoundOptions {
  /** Rough wall time of one timed run per case. */
  roundMs: number;
  rounds: number;
  /** Untimed runs per case before the rounds, to let the JIT settle. */
  warmupMs: number;
  /** Upper bound on ops per round (bounds setup cost and memory for cases that pre-create state). */
  maxOps?: number;
  /**
   * `cpu`: time each run by the CPU time this process used (all its threads, GC helpers
   * included) instead of wall time. For single-process, in-memory rows on a shared machine:
   * time spent descheduled while other processes run is not charged to either side of a ratio.
   */
  clock?: 'wall' | 'cpu';
}

// The bench runs without --expose-gc (the npm script is fixed), so switch it on at
// runtime: collecting between runs keeps one case's garbage off the next one's clock.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Runs every case for `rounds` rounds, interleaved (round r starts at case r mod n),
 * so drift in the machine's speed hits all rows alike. Returns the median ops/s per case.
 */
export async function runInterleaved(cases: readonly BenchCase[], options: RoundOptions): Promise<CaseResult[]> {
  const opsPerRound = new Map<BenchCase, number>();
  for (const c of cases) opsPerRound.set(c, await calibrate(c, options));
  const clock = options.clock ?? 'wall';

  const samples = new Map<BenchCase, number[]>(cases.map((c) => [c, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(round + i) % cases.length]!;
      const ops = opsPerRound.get(c)!;
      samples.get(c)!.push(ops / ((await timeOnce(c, ops, clock)) / 1000));
    }
  }
  return cases.map((c) => ({
    name: c.name,
    note: c.note,
    opsPerSec: median(samples.get(c)!),
    samples: samples.get(c)!,
    opsPerRound: opsPerRound.get(c)!,
  }));
}

/** Warm-up doubling the op count until one run takes a measurable time; returns ops for roundMs. */
async function calibrate(c: BenchCase, options: RoundOptions): Promise<number> {
  const maxOps = options.maxOps ?? Number.MAX_SAFE_INTEGER;
  let ops = 16;
  let spent = 0;
  let rate = 0;
  while (spent < options.warmupMs) {
    const ms = await timeOnce(c, ops, options.clock ?? 'wall');
    spent += ms;
    rate = ops / Math.max(ms, 0.001);
    if (ms < 20 && ops < maxOps) ops = Math.min(ops * 2, maxOps);
  }
  return Math.max(16, Math.min(maxOps, Math.round(rate * options.roundMs)));
}

/** Milliseconds one run of `ops` took, by the wall clock or by this process's CPU time. */
async function timeOnce(c: BenchCase, ops: number, clock: 'wall' | 'cpu'): Promise<number> {
  const body = await c.prepare(ops);
  collectGarbage();
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const pending = body();
  if (pending instanceof Promise) await pending;
  if (clock === 'cpu') {
    const used = process.cpuUsage(cpuStart);
    return (used.user + used.system) / 1000;
  }
  return performance.now() - start;
}

/** Starts `concurrency` async workers (given their index) and waits for all of them. */
export async function runWorkers(concurrency: number, worker: (index: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
}
