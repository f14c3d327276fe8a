import { createInterface } from 'node:readline';
import fc from 'fast-check';
import type { Step } from './actions.ts';
import { LifecycleViolation } from './invariants.ts';
import { initialState, type ModelState } from './model.ts';
import type { KnownDefect } from './rules.ts';
import { emptyStats, type LifecycleStats, runSteps } from './run-lifecycle-model.ts';
import { type AgentKnowledge, type LifecycleHarness, RealSystem } from './system.ts';

// The child side of a killed-process history (run-killed-lifecycle.ts): a process that runs
// the gate on a store on disk, runs the first steps of a history, reports the state after
// each one, and stops where the parent will SIGKILL it. No test runner here: the stores'
// worker scripts import this and run under plain Node.

/** Where the worker stops for its SIGKILL: before step `step`, or (with `call`) before that step's `call`-th store call. */
export interface KillPoint {
  step: number;
  call?: number | undefined;
}

/** What the parent sends the worker, as one JSON line on stdin. */
export interface WorkerInput {
  steps: Step[];
  kill: KillPoint;
  knownDefects: Readonly<Record<KnownDefect, boolean>>;
}

/** One JSON line the worker prints. `state`: after set-up (`index` -1) and after each step the worker finished. */
export type WorkerReport =
  | { type: 'state'; index: number; model: ModelState; agents: AgentKnowledge; stats: LifecycleStats; ran: unknown[] }
  /** Stopped at the kill point: the parent kills now. `inStep`: inside step `index` (some of its store calls made). */
  | { type: 'paused'; index: number; inStep: boolean }
  | { type: 'violation'; message: string };

/**
 * Runs the worker: reads its input, opens the store at `harness`, sets the gate up, runs
 * steps until the kill point, reports, and waits there to be killed. A violation in its
 * steps is reported and ends it.
 */
export async function runLifecycleWorker(harness: LifecycleHarness): Promise<void> {
  const input = JSON.parse(await firstLine()) as WorkerInput;
  const report = (r: WorkerReport) => process.stdout.write(`${JSON.stringify(r)}\n`);
  const stopHere = (index: number, inStep: boolean): Promise<never> => {
    report({ type: 'paused', index, inStep });
    // Never resolves: the parent SIGKILLs this process while it waits here.
    return new Promise<never>(() => {});
  };
  const system = new RealSystem(harness);
  await system.start();
  const stats = emptyStats();
  const [scheduler] = fc.sample(fc.scheduler(), { numRuns: 1, seed: 0 });
  const run = { system, scheduler: scheduler!, stats, tolerated: input.knownDefects, ran: [] as unknown[] };
  let model = initialState({ editedAllowedCallSkipsApproval: input.knownDefects.editedCallRunsWithoutItsApproval });
  const state = (index: number) => report({ type: 'state', index, model, agents: system.knowledge(), stats, ran: run.ran });
  state(-1);
  try {
    for (const [index, step] of input.steps.entries()) {
      if (index === input.kill.step) {
        if (input.kill.call === undefined) await stopHere(index, false);
        // Inside the step: stop before its call-th store call, the ones before it done.
        let calls = 0;
        system.schedule(async () => {
          if (calls++ === input.kill.call) await stopHere(index, true);
        });
      }
      model = await runSteps(run, model, [step]);
      state(index);
    }
    // The kill point lies past the steps (or inside a step that made fewer calls): stop after them.
    await stopHere(input.steps.length, false);
  } catch (error) {
    report({ type: 'violation', message: error instanceof LifecycleViolation ? error.message : `the worker failed: ${String(error)}` });
    process.exit(1);
  }
}

async function firstLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new Error('the worker got no input on stdin');
}
