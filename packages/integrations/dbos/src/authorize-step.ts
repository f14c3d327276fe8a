import { randomUUID } from 'node:crypto';
import type { AuthorizeOutcome, AuthorizeRequest, TokenResult } from '@countersign/core/gate';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { IDEMPOTENT_STEP, ONCE_STEP, type WorkflowSettings } from './settings.ts';

/**
 * Authorize's outcome as the workflow sees it. `fresh` is true only when the authorize step
 * ran in this very execution of the workflow; a grant replayed from the engine's history
 * (after a crash or a resume) is not fresh, and a tool is never started with it: the
 * earlier execution may already have run it (at most once).
 */
export interface Authorization {
  outcome: AuthorizeOutcome;
  fresh: boolean;
}

interface RecordedAuthorization {
  outcome: AuthorizeOutcome;
  /** The execution nonce of the workflow execution that ran the step. */
  execution: string;
}

/** The token for an approved request, in a recorded step (tokens are deterministic, so a re-run mints the same). */
export function tokenStep(settings: WorkflowSettings, requestId: string): Promise<TokenResult> {
  return DBOS.runStep(() => settings.port.token(requestId), { name: 'countersign.token', ...IDEMPOTENT_STEP });
}

/**
 * Spends the approval in a step that runs at most once per execution and is never retried:
 * its output, the grant, is recorded by the engine. A transport failure (the answer may be
 * lost after the approval was spent) is recorded as `store_unavailable`, and nothing runs.
 */
export async function authorizeStep(settings: WorkflowSettings, request: AuthorizeRequest): Promise<Authorization> {
  // Deliberately not deterministic: the nonce tells this execution from an earlier one whose
  // recorded output a replay returns. It only decides whether a tool may start.
  const execution = randomUUID();
  const recorded = await DBOS.runStep(
    async (): Promise<RecordedAuthorization> => {
      try {
        return { outcome: await settings.port.authorize(request), execution };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { outcome: { status: 'not_approved', reason: 'store_unavailable', message, proposalId: request.proposalId }, execution };
      }
    },
    { name: 'countersign.authorize', ...ONCE_STEP },
  );
  return { outcome: recorded.outcome, fresh: recorded.execution === execution };
}
