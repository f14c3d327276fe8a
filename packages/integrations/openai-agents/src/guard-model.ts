import type { Model, ModelProvider, ModelRequest, ModelResponse } from '@openai/agents';
import type { CountersignGuard, ModelFunctionCall } from './guard.ts';
import { checkRelayedInput } from './relay-check.ts';

/**
 * Wraps an Agents SDK `Model` so that the function calls of each response are proposed
 * to the gate together, with the response id, when the model produced them and before
 * the runner sees them: the ledger's record of "what the model asked for" comes from
 * the model's own output, never from a `RunState` that was serialized and read back.
 *
 * Before each request, the tool results the input relays back to the model are checked
 * against the results recorded at `complete` (CASA check 5, `checkRelayed`): an edited
 * or made-up result rejects the run (`CountersignRelayRefusal`) and the model never
 * sees it. Streamed responses are proposed at `response_done` (the event the runner
 * takes the function calls from), before it is passed on. With the guard's `intent`
 * option, the task proposed with a response's calls is derived from its request.
 */
export function guardModel(model: Model, guard: CountersignGuard): Model {
  const guarded: Model = {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      await checkRelayedInput(guard, request.input);
      const response = await model.getResponse(request);
      await guard.proposeResponse(functionCallsOf(response.output), response.responseId, request);
      return response;
    },
    async *getStreamedResponse(request: ModelRequest) {
      await checkRelayedInput(guard, request.input);
      for await (const event of model.getStreamedResponse(request)) {
        if (event.type === 'response_done') await guard.proposeResponse(functionCallsOf(event.response.output), event.response.id, request);
        yield event;
      }
    },
  };
  if (model.getRetryAdvice !== undefined) guarded.getRetryAdvice = (args) => model.getRetryAdvice?.(args);
  if (model.supportsPromptModelSelection !== undefined) Object.assign(guarded, { supportsPromptModelSelection: model.supportsPromptModelSelection });
  return guarded;
}

/** A `ModelProvider` whose models are guarded (for agents that name their model: `new Runner({ modelProvider })`). */
export function guardModelProvider(provider: ModelProvider, guard: CountersignGuard): ModelProvider {
  return { getModel: async (name?: string) => guardModel(await provider.getModel(name), guard) };
}

function functionCallsOf(output: readonly unknown[]): ModelFunctionCall[] {
  const calls: ModelFunctionCall[] = [];
  for (const item of output) {
    if (typeof item !== 'object' || item === null) continue;
    const { type, callId, name, arguments: args } = item as { type?: unknown; callId?: unknown; name?: unknown; arguments?: unknown };
    if (type === 'function_call' && typeof callId === 'string' && typeof name === 'string' && typeof args === 'string') {
      calls.push({ callId, name, arguments: args });
    }
  }
  return calls;
}
