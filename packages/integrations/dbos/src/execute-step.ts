import type { Grant } from '@countersign/core/gate';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { ONCE_STEP } from './settings.ts';

/** Runs the granted call: gets the ledger's arguments (what the approver saw) and the grant. */
export type GrantedTool<Result = unknown> = (args: unknown, grant: Grant) => Promise<Result>;

export type Execution<Result = unknown> =
  | { status: 'succeeded'; result: Result }
  | { status: 'failed'; error: string }
  /** An earlier execution of the workflow was cleared to run the tool and did not record an outcome: it may have run. */
  | { status: 'unknown' };

/**
 * Runs the tool in a step that is never retried, only with a grant authorized in this
 * execution (`fresh`). When the step is recorded, a replay returns its outcome without
 * running the tool. When it is not (the process died while the tool ran), the recovered
 * execution finds the grant replayed, not fresh, and records `unknown` instead of running
 * the tool again. The tool's errors are recorded as `failed`, not thrown.
 */
export function executeStep<Result>(grant: Grant, fresh: boolean, tool: GrantedTool<Result>): Promise<Execution<Result>> {
  return DBOS.runStep(
    async (): Promise<Execution<Result>> => {
      if (!fresh) return { status: 'unknown' };
      try {
        return { status: 'succeeded', result: await tool(JSON.parse(grant.canonicalArgs) as unknown, grant) };
      } catch (error) {
        return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
      }
    },
    { name: 'countersign.execute', ...ONCE_STEP },
  );
}
