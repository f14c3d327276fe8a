import type { Agent } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import type { ProposeOutcome } from '../common/outcomes.ts';
import type { ModelResponse } from '../common/port.ts';
import { type ModelToolCall, proposeResponse } from './propose.ts';

/**
 * One model response with all its tool calls, recorded in one operation: the calls are
 * checked and decided in the model's order and written together, so SQLite and
 * Postgres commit the whole response in one transaction. One outcome per call. Never throws.
 */
export function proposeModelResponse(deps: GateDeps, response: ModelResponse, agent?: Agent): Promise<ProposeOutcome[]> {
  if (typeof response !== 'object' || response === null || !Array.isArray(response.toolCalls)) {
    return Promise.resolve([{ status: 'rejected', reason: 'invalid_call', message: 'a model response needs a toolCalls list' }]);
  }
  const calls = response.toolCalls.map(
    (toolCall): ModelToolCall => ({
      runId: response.runId,
      sessionId: response.sessionId,
      principal: response.principal,
      callId: toolCall?.id,
      toolName: toolCall?.name,
      arguments: toolCall?.arguments,
      responseRef: response.responseRef,
      ...(toolCall?.context === undefined ? {} : { context: toolCall.context }),
      ...(toolCall?.executedBy === undefined ? {} : { executedBy: toolCall.executedBy }),
      ...(response.task === undefined ? {} : { task: response.task }),
      ...(response.taskId === undefined ? {} : { taskId: response.taskId }),
      ...(response.offered === undefined ? {} : { offered: response.offered }),
      ...(response.authorizeAllowed === true ? { authorizeAllowed: true } : {}),
    }),
  );
  return proposeResponse(deps, calls, agent);
}

