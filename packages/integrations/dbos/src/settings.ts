import type { GatePort } from '@countersign/core/gate';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { CountersignDbosError } from './errors.ts';

export interface CountersignWorkflowOptions {
  /** The gate: `gate.port(agent)` in process, or `createClient(...)` for a shared approval service. */
  port: GatePort;
  /**
   * Longest a waiting workflow sleeps before it re-reads the request from Countersign when no
   * notification arrived (the safety net for a lost `send`). Default 60 s.
   */
  pollIntervalMs?: number | undefined;
}

export interface WorkflowSettings {
  port: GatePort;
  pollIntervalMs: number;
}

const DEFAULT_POLL_MS = 60_000;
/** Never re-read faster than this, even when the gate's clock and ours disagree about expiry. */
export const MIN_POLL_MS = 1_000;

export function settingsOf(options: CountersignWorkflowOptions): WorkflowSettings {
  const poll = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  if (!Number.isFinite(poll) || poll < MIN_POLL_MS) throw new RangeError(`pollIntervalMs must be a number >= ${MIN_POLL_MS}`);
  return { port: options.port, pollIntervalMs: poll };
}

/** The id of the workflow this code runs in: it is the Countersign run id. */
export function currentWorkflowId(helper: string): string {
  const id = DBOS.isInWorkflow() ? DBOS.workflowID : undefined;
  if (id === undefined) throw new CountersignDbosError('not_in_workflow', `${helper} must be called from a DBOS workflow function (not from a step)`);
  return id;
}

/** Retries for steps that are safe to repeat (reads, propose of the same calls, complete with the same result). */
export const IDEMPOTENT_STEP = { retriesAllowed: true, maxAttempts: 3, intervalSeconds: 1 } as const;
/** Steps that must run at most once (authorize spends the approval; the tool has side effects). */
export const ONCE_STEP = { retriesAllowed: false } as const;
