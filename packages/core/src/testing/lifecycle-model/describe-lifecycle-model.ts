import { describe, it } from 'vitest';
import { runLifecycleModel } from './run-lifecycle-model.ts';
import type { LifecycleHarness } from './system.ts';

/** The CI budget of one store's model suite: a fixed number of histories each. */
export interface LifecycleBudget {
  numRuns: number;
  maxSteps: number;
  timeoutMs?: number | undefined;
}

/**
 * The lifecycle model's two suites for one store: random histories with store faults and
 * restarts, and histories with concurrent steps under fast-check's scheduler.
 */
export function describeLifecycleModel(name: string, harness: () => Promise<LifecycleHarness>, budget: LifecycleBudget): void {
  describe(`the approval lifecycle model, ${name}`, () => {
    it('random histories of several agents and approvers, with store faults and restarts, match the model', async () => {
      await runLifecycleModel({ harness, numRuns: budget.numRuns, maxSteps: budget.maxSteps, steps: { faults: true, restarts: true, concurrency: false } });
    }, budget.timeoutMs);

    it('concurrent actions under a controlled scheduler are explained by some order of them', async () => {
      await runLifecycleModel({ harness, numRuns: budget.numRuns, maxSteps: budget.maxSteps, steps: { faults: false, restarts: false, concurrency: true } });
    }, budget.timeoutMs);
  });
}
