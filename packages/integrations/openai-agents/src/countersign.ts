import type { Handoff, Model, ModelProvider, RunToolApprovalItem } from '@openai/agents';
import { applyCountersignDecisions, countersignApprovals } from './decisions.ts';
import { CountersignGuard, type CountersignGuardOptions } from './guard.ts';
import { guardModel, guardModelProvider } from './guard-model.ts';
import { type AgentToolOptions, guardAgentTool } from './guard-agent-tool.ts';
import { guardHandoff } from './guard-handoff.ts';
import { guardTools } from './guard-tools.ts';
import type { AnyAgent, AnyFunctionTool, AnyRunState, AnyTool } from './sdk-types.ts';

/**
 * Countersign for one OpenAI Agents SDK run (or one resumption of it): wrap the model
 * (records each response's function calls, checks relayed results) and the tools
 * (`needsApproval` from policy; execute only after `authorize`, with the ledger's
 * arguments):
 *
 * ```ts
 * const cs = countersign({ port, context: { runId, sessionId, principal: `user:${user.id}` }, index });
 * const agent = new Agent({ name, model: cs.model(model), tools: cs.tools(tools), handoffs: [cs.handoff(billing)] });
 * let result = await run(agent, input);
 * // result.interruptions → await cs.approvals(result.interruptions): request ids for the approver.
 * // Later (any process, same index): state = await RunState.fromString(agent, saved);
 * await cs.applyDecisions(state); // approve/reject from Countersign, never from the saved string
 * result = await run(agent, state);
 * ```
 */
export function countersign(options: CountersignGuardOptions) {
  const guard = new CountersignGuard(options);
  return {
    guard,
    /** Every refusal given through this guard, typed. */
    refusals: guard.refusals,
    model: (model: Model): Model => guardModel(model, guard),
    modelProvider: (provider: ModelProvider): ModelProvider => guardModelProvider(provider, guard),
    tools: <TOOLS extends readonly AnyTool[]>(tools: TOOLS): TOOLS => guardTools(tools, guard),
    /** A handoff the model may call, recorded and authorized like any call (see `guardHandoff`). */
    handoff: (target: AnyAgent | Handoff): Handoff => guardHandoff(target, guard),
    /** An agent used as a tool (`agent.asTool(options)`), guarded outside and in (see `guardAgentTool`). */
    agentTool: (agent: AnyAgent, options: AgentToolOptions): AnyFunctionTool => guardAgentTool(agent, options, guard),
    approvals: (interruptions: readonly RunToolApprovalItem[]) => countersignApprovals(guard, interruptions),
    applyDecisions: (state: AnyRunState) => applyCountersignDecisions(guard, state),
  };
}
