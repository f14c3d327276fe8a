import type { Model, ModelProvider, ModelRequest, ModelResponse } from '@openai/agents';
import { CountersignUnguardedTool } from '@countersign/core/integration';
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
      refuseUnguardedTools(guard, request);
      await checkRelayedInput(guard, request.input);
      const response = await model.getResponse(request);
      await guard.proposeResponse(functionCallsOf(response.output), response.responseId, request);
      return response;
    },
    async *getStreamedResponse(request: ModelRequest) {
      refuseUnguardedTools(guard, request);
      await checkRelayedInput(guard, request.input);
      for await (const event of model.getStreamedResponse(request)) {
        if (event.type === 'response_done') await guard.proposeResponse(functionCallsOf(event.response.output), event.response.id, request);
        yield event;
      }
    },
  };
  guard.models.add(guarded);
  if (model.getRetryAdvice !== undefined) guarded.getRetryAdvice = (args) => model.getRetryAdvice?.(args);
  if (model.supportsPromptModelSelection !== undefined) Object.assign(guarded, { supportsPromptModelSelection: model.supportsPromptModelSelection });
  return guarded;
}

/** A `ModelProvider` whose models are guarded (for agents that name their model: `new Runner({ modelProvider })`). */
export function guardModelProvider(provider: ModelProvider, guard: CountersignGuard): ModelProvider {
  return { getModel: async (name?: string) => guardModel(await provider.getModel(name), guard) };
}

/**
 * Run start, before any model call: every tool and handoff the runner offers the model
 * must be one wrapped with this guard (`cs.tools`, `cs.handoff`). Tools the runner
 * builds at run time (from `mcpServers`), hosted tools and unguarded handoffs throw
 * `CountersignUnguardedTool`: none runs unchecked.
 */
function refuseUnguardedTools(guard: CountersignGuard, request: ModelRequest): void {
  for (const tool of request.tools) {
    if (tool.type !== 'function') throw new CountersignUnguardedTool(tool.name, tool.type, 'it runs outside the agent process, where Countersign cannot hold it');
    if (!guard.guarded.has(tool.name)) throw new CountersignUnguardedTool(tool.name, 'function', 'it was not wrapped with cs.tools (a tool built at run time, e.g. from mcpServers?)');
  }
  for (const handoff of request.handoffs) {
    if (!guard.guarded.has(handoff.toolName)) throw new CountersignUnguardedTool(handoff.toolName, 'handoff', 'it was not wrapped with cs.handoff');
  }
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
