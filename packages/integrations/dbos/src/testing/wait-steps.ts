import { expect } from 'vitest';

/** The recorded steps of a workflow (`DBOS.listWorkflowSteps` or a `DBOSClient`'s). */
export type ListSteps = (workflowId: string) => Promise<ReadonlyArray<{ name: string; output: unknown }> | undefined>;

/** The step the approval wait records each time it reads the request from Countersign (await-approval.ts). */
const DECISION_READ = 'countersign.decision';
/** The name DBOS records a `DBOS.recv` under, with the message received (null: its deadline passed). */
const RECV = 'DBOS.recv';

/**
 * Resolves once the workflow has read its approval request from Countersign at least
 * `reads` times: after the first, it is asleep in `DBOS.recv` (it reads again only when
 * woken). An event to wait for instead of a fixed sleep, which a loaded machine outlasts.
 */
export async function decisionReads(list: ListSteps, workflowId: string, reads = 1): Promise<void> {
  await expect
    .poll(async () => ((await list(workflowId)) ?? []).filter((step) => step.name === DECISION_READ).length, { timeout: 30_000, interval: 25 })
    .toBeGreaterThanOrEqual(reads);
}

/**
 * Resolves once the workflow received a message on its wait and then read Countersign
 * again: what a forged "approved" message led to has happened by then (it decides on that
 * read, never on the message).
 */
export async function wokenAndReadAgain(list: ListSteps, workflowId: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const steps = (await list(workflowId)) ?? [];
        const woken = steps.findIndex((step) => step.name === RECV && step.output !== null && step.output !== undefined);
        return woken !== -1 && steps.slice(woken + 1).some((step) => step.name === DECISION_READ);
      },
      { timeout: 30_000, interval: 25 },
    )
    .toBe(true);
}
