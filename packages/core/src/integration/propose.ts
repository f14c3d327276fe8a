import type { GatePort, ModelResponse, ProposeOutcome } from '../gate/index.ts';
import type { RefusedAtPropose } from './guarded-call.ts';
import { unreachable } from './unreachable.ts';

/**
 * Records one model response's tool calls (`port.propose`) and returns exactly one
 * outcome per call, in order. Never throws: a gate that cannot be reached is a
 * `store_unavailable` rejection per call, a missing outcome an `invalid_call` one, so
 * an integration can never run a call it has no outcome for.
 */
export async function proposeOrReject(port: Pick<GatePort, 'propose'>, response: ModelResponse): Promise<ProposeOutcome[]> {
  let outcomes: ProposeOutcome[];
  try {
    outcomes = await port.propose(response);
  } catch (error) {
    const message = unreachable(error);
    outcomes = response.toolCalls.map(() => ({ status: 'rejected', reason: 'store_unavailable', message }));
  }
  return response.toolCalls.map(
    (_call, i): ProposeOutcome => outcomes[i] ?? { status: 'rejected', reason: 'invalid_call', message: 'the gate gave no outcome for this call' },
  );
}

/**
 * The refusal a propose outcome is: `denied` by policy (the call is recorded, with its
 * proposal id) or `rejected` (not recorded: definition, arguments, intent, store; with the
 * definition review a person must decide, when there is one). Undefined for a call
 * recorded as runnable (`allowed`, or `approval_required`: it waits for an approver).
 */
export function refusalAtPropose(outcome: ProposeOutcome): RefusedAtPropose | undefined {
  switch (outcome.status) {
    case 'allowed':
    case 'approval_required':
      return undefined;
    case 'denied':
      return { status: 'denied', reason: outcome.reason, message: outcome.message, ...(outcome.proposalId === undefined ? {} : { proposalId: outcome.proposalId }) };
    default:
      return { status: 'rejected', reason: outcome.reason, message: outcome.message, ...(outcome.reviewRequestId === undefined ? {} : { reviewRequestId: outcome.reviewRequestId }) };
  }
}
