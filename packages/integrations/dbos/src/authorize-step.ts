import { randomUUID } from 'node:crypto';
import type { AuthorizeOutcome, AuthorizeRequest, TokenResult } from '@countersign/core/gate';
import type { GateStep } from '@countersign/core/integration';
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

/** The token for an approved request, in a recorded step (tokens are deterministic, so a re-run mints the same). */
export function tokenStep(settings: WorkflowSettings, requestId: string): Promise<TokenResult> {
  return DBOS.runStep(() => settings.port.token(requestId), { name: 'countersign.token', ...IDEMPOTENT_STEP });
}

/**
 * Sends `send` in a step that runs at most once per execution and is never retried (its
 * output is recorded by the engine), and says whether it ran in this execution (`fresh`)
 * or its output was replayed from an earlier one.
 */
async function onceStep<T>(name: string, send: () => Promise<T>): Promise<{ value: T; fresh: boolean }> {
  // Deliberately not deterministic: the nonce tells this execution from an earlier one whose
  // recorded output a replay returns. It only decides whether a tool may start.
  const execution = randomUUID();
  const recorded = await DBOS.runStep(async () => ({ value: await send(), execution }), { name, ...ONCE_STEP });
  return { value: recorded.value, fresh: recorded.execution === execution };
}

/**
 * The guarded-call state machine's exchanges with the gate as DBOS steps (core's
 * `GateStep`): reads are recorded and may be retried; authorize runs in a step that is
 * never retried, and `fresh()` says whether the last authorize ran in this execution.
 */
export function workflowGateSteps(): { step: GateStep; fresh: () => boolean } {
  let fresh = false;
  const step: GateStep = async (exchange, send) => {
    if (exchange !== 'authorize') return DBOS.runStep(send, { name: `countersign.${exchange}`, ...IDEMPOTENT_STEP });
    const ran = await onceStep('countersign.authorize', send);
    fresh = ran.fresh;
    return ran.value;
  };
  return { step, fresh: () => fresh };
}

/**
 * Spends the approval in a step that runs at most once per execution and is never retried:
 * its output, the grant, is recorded by the engine. A transport failure (the answer may be
 * lost after the approval was spent) is recorded as `store_unavailable`, and nothing runs.
 */
export async function authorizeStep(settings: WorkflowSettings, request: AuthorizeRequest): Promise<Authorization> {
  const { value, fresh } = await onceStep('countersign.authorize', async (): Promise<AuthorizeOutcome> => {
    try {
      return await settings.port.authorize(request);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { status: 'not_approved', reason: 'store_unavailable', message, proposalId: request.proposalId };
    }
  });
  return { outcome: value, fresh };
}
