import type { ModelResponse, ProposeOutcome } from '@countersign/core/gate';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { CountersignDbosError } from './errors.ts';
import { currentWorkflowId, IDEMPOTENT_STEP, type WorkflowSettings } from './settings.ts';

/** A model response as a workflow proposes it: the run is the workflow (`runId`, when given, must be its id). */
export type WorkflowModelResponse = Omit<ModelResponse, 'runId'> & { runId?: string | undefined };

/**
 * Records the model's calls in Countersign in a step. The run id is the workflow id: the
 * approval service notifies the workflow by it, and the run's token key is derived from it,
 * so a token minted before a crash verifies after recovery.
 */
export function proposeStep(settings: WorkflowSettings, response: WorkflowModelResponse): Promise<ProposeOutcome[]> {
  const runId = currentWorkflowId('propose');
  if (response.runId !== undefined && response.runId !== runId) {
    throw new CountersignDbosError('run_id_mismatch', `the run id must be the workflow id (${runId}), got ${response.runId}`);
  }
  return DBOS.runStep(() => settings.port.propose({ ...response, runId }), { name: 'countersign.propose', ...IDEMPOTENT_STEP });
}
