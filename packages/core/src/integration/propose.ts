import type { GatePort, ModelResponse, ProposeOutcome } from '../gate/index.ts';
import { unreachable } from './unreachable.ts';

/**
 * Records one model response's tool calls (`port.propose`) and returns exactly one
 * outcome per call, in order. Never throws: a gate that cannot be reached is a
 * `store_unavailable` rejection per call, a missing outcome an `invalid_call` one, so
 * an integration can never run a call it has no outcome for.
 */
export async function proposeOrReject(port: GatePort, response: ModelResponse): Promise<ProposeOutcome[]> {
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
