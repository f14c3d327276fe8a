import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { withCompileCache } from '../children/compile-cache.ts';
import { type Step, stepArbitrary } from './actions.ts';
import { checkAuditStory, LifecycleViolation, readSnapshot, snapshotOf } from './invariants.ts';
import type { KillPoint, WorkerInput, WorkerReport } from './kill-worker.ts';
import { type ModelState, resolveAction } from './model.ts';
import { KNOWN_DEFECTS, type KnownDefect } from './rules.ts';
import { emptyStats, type HistoryRun, type LifecycleStats, runSteps, seenBy, statesAfterFault, withAgentKnowledge, withHistory } from './run-lifecycle-model.ts';
import { type LifecycleHarness, RealSystem } from './system.ts';

/** A fresh store on disk, and where a worker process opens the same store (a file path, a schema). */
export interface KillableHarness {
  harness: LifecycleHarness;
  location: string;
}

export interface KilledRunOptions {
  /** A fresh store per history. */
  harness: () => Promise<KillableHarness>;
  /** The store's worker script (it calls `runLifecycleWorker` on the store at its first argument). */
  worker: string;
  numRuns: number;
  maxSteps: number;
  seed?: number | undefined;
  path?: string | undefined;
  stats?: LifecycleStats | undefined;
  knownDefects?: Readonly<Record<KnownDefect, boolean>> | undefined;
  /** Shrink a failing history (default true); each try starts a process, so a test that expects failure may skip it. */
  shrink?: boolean | undefined;
  /** A worker that does not reach its kill point in time is a hang, reported as a violation (default 30 s). */
  workerTimeoutMs?: number | undefined;
}

/** Before step n, or before store call m of step n. */
const killPoint = fc.record({ step: fc.nat({ max: 40 }), call: fc.option(fc.nat({ max: 5 }), { nil: undefined }) });

/**
 * Real process death: each history's first steps run in a child process on a store on
 * disk (SQLite file, Postgres schema), which is SIGKILLed at a generated point, between
 * two steps or inside one (before its n-th store call, the ones before it done). The
 * model then continues from the store as reopened by this process: a step cut short
 * must have left all of its effect or none (for a response: any of its calls), the
 * agents keep only what they were answered, and every later step and the audit chain
 * are checked as in any history. Fails like `runLifecycleModel`, with seed and path.
 */
export async function runKilledLifecycleModel(options: KilledRunOptions): Promise<LifecycleStats> {
  const stats = options.stats ?? emptyStats();
  const tolerated = options.knownDefects ?? KNOWN_DEFECTS;
  // Each history costs a process start: make each one long enough to be worth it.
  const steps = fc.array(stepArbitrary({ faults: true, restarts: true, concurrency: false }), { minLength: Math.ceil(options.maxSteps / 2), maxLength: options.maxSteps, size: 'max' });
  const property = fc.asyncProperty(steps, killPoint, async (history, point) => {
    stats.histories++;
    const { harness, location } = await options.harness();
    const kill = { step: point.step % (history.length + 1), call: point.call };
    const system = new RealSystem(harness);
    try {
      const reports = await runWorker(options.worker, location, { steps: history.slice(0, kill.step + 1), kill, knownDefects: tolerated }, options.workerTimeoutMs ?? 30_000);
      stats.kills++;
      await continueAfterKill(system, history, reports, stats, tolerated);
    } catch (error) {
      if (error instanceof LifecycleViolation) stats.violations++;
      throw error;
    } finally {
      await system.stop().catch(() => undefined);
      await harness.destroy();
    }
  });
  await fc.assert(property, {
    numRuns: options.numRuns,
    endOnFailure: options.shrink === false,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  return stats;
}

/** The model's side after the kill: settle the step cut short, then run the rest of the history on the reopened store. */
async function continueAfterKill(system: RealSystem, history: Step[], reports: WorkerReport[], stats: LifecycleStats, tolerated: Readonly<Record<KnownDefect, boolean>>): Promise<void> {
  const last = reports.filter((r) => r.type === 'state').at(-1);
  const paused = reports.find((r) => r.type === 'paused');
  if (last === undefined || paused === undefined) throw new LifecycleViolation(`the worker stopped without its state: ${JSON.stringify(reports)}`);
  addStats(stats, last.stats);
  await system.resume(last.agents);
  const [scheduler] = fc.sample(fc.scheduler(), { numRuns: 1, seed: 0 });
  const run: HistoryRun = { system, scheduler: scheduler!, stats, tolerated, ran: [...last.ran, { killed: paused.inStep ? `inside step ${paused.index}` : `before step ${paused.index}` }] };
  await withHistory(run.ran, async () => {
    let model = last.model;
    let next = last.index + 1;
    if (paused.inStep) {
      model = await settleCutStep(system, model, history[paused.index]!, paused.index);
      next = paused.index + 1;
    }
    model = await runSteps(run, model, history.slice(next));
    await checkAuditStory(system, model, tolerated, seenBy(stats));
  });
}

/** The state a step killed midway left: one its effect explains (all, none, or for a response some of its calls); the agent got no answer. */
async function settleCutStep(system: RealSystem, model: ModelState, step: Step, index: number): Promise<ModelState> {
  const action = 'action' in step ? resolveAction(model, step.action) : undefined;
  const candidates = action === undefined ? [model] : statesAfterFault(model, action).map((s) => withAgentKnowledge(s, model, action, []));
  for (const candidate of candidates) {
    await system.learnIds(candidate);
    if ((await readSnapshot(system, candidate)) === snapshotOf(candidate)) return candidate;
  }
  throw new LifecycleViolation(`killed inside step ${index} (${JSON.stringify(action)}): the reopened store holds ${await readSnapshot(system, model)}, which no outcome of the step explains`);
}

function addStats(into: LifecycleStats, from: LifecycleStats): void {
  into.commands += from.commands;
  into.faults += from.faults;
  into.restarts += from.restarts;
  into.concurrentBatches += from.concurrentBatches;
  for (const [k, n] of Object.entries(from.knownDefects)) into.knownDefects[k as KnownDefect] = (into.knownDefects[k as KnownDefect] ?? 0) + (n ?? 0);
  for (const [k, n] of Object.entries(from.answers)) into.answers[k] = (into.answers[k] ?? 0) + n;
  for (const [k, n] of Object.entries(from.faultsAt)) into.faultsAt[k] = (into.faultsAt[k] ?? 0) + n;
}

/** Runs the worker until it reports its kill point, then SIGKILLs it; its reports, or a violation it reported. */
async function runWorker(script: string, location: string, input: WorkerInput, timeoutMs: number): Promise<WorkerReport[]> {
  const child = spawn(process.execPath, ['--conditions=countersign-source', script, location], { env: withCompileCache(process.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const reports: WorkerReport[] = [];
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    child.stdin.write(`${JSON.stringify(input)}\n`);
    for await (const line of createInterface({ input: child.stdout })) {
      const report = JSON.parse(line) as WorkerReport;
      reports.push(report);
      if (report.type === 'violation') throw new LifecycleViolation(`in the worker: ${report.message}`);
      if (report.type === 'paused') {
        // Process death, not a shutdown: nothing of the worker runs after this.
        child.kill('SIGKILL');
        break;
      }
    }
    await exited;
    if (reports.at(-1)?.type !== 'paused') throw new LifecycleViolation(`the worker ended without reaching its kill point ${JSON.stringify(input.kill)}: ${stderr.slice(-2000)}`);
    return reports;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

export type { KillPoint };
