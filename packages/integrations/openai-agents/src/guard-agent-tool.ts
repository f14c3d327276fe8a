import { CountersignUnguardedTool } from '@countersign/core/integration';
import type { AgentToolOptionsWithDefault, AgentToolOptionsWithParameters } from '@openai/agents';
import type { CountersignGuard } from './guard.ts';
import { guardedMembers } from './guard-tools.ts';
import type { AnyAgent, AnyFunctionTool } from './sdk-types.ts';

/** `agent.asTool`'s options (tool name, description, output extractor, ...), with or without custom `parameters`. */
export type AgentToolOptions =
  | AgentToolOptionsWithDefault<unknown, AnyAgent>
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's parameters type parameter, any schema
  | AgentToolOptionsWithParameters<unknown, AnyAgent, any>;

/**
 * An agent used as a tool (`agent.asTool(options)`), guarded at both levels: the outer
 * call is recorded with the model's response, authorized by policy (register its
 * definition with `toolDefinitions([tool])` and give it a rule) and completed with the
 * text the model reads; inside, the agent's own model and tools must be wrapped with
 * the same `countersign(...)`, so each of its calls is proposed and authorized in the
 * same run. An agent whose model, tools, handoffs or MCP servers are not held by this
 * guard is refused here with `CountersignUnguardedTool`, before any run.
 *
 * The guard is applied to the SDK's own tool object (not a copy), so the SDK still
 * knows which agent it runs when it reads a saved run state.
 */
export function guardAgentTool(agent: AnyAgent, options: AgentToolOptions, guard: CountersignGuard): AnyFunctionTool {
  // One of asTool's two overloads, whichever `options` is.
  const tool = agent.asTool(options as AgentToolOptionsWithDefault<unknown, AnyAgent>) as AnyFunctionTool;
  const refuse = (why: string) => new CountersignUnguardedTool(tool.name, 'agent_tool', why);
  if (typeof agent.model !== 'object' || !guard.models.has(agent.model)) throw refuse(`agent ${agent.name}'s model is not wrapped with this cs.model: its own tool calls would not be recorded`);
  if (agent.mcpServers.length > 0) throw refuse(`agent ${agent.name} has MCP servers, whose tools the runner builds at run time`);
  for (const inner of agent.tools) {
    if (!guard.wrapped.has(inner)) throw refuse(`agent ${agent.name}'s tool ${inner.name} is not wrapped with this cs.tools`);
  }
  for (const handoff of agent.handoffs) {
    const name = 'toolName' in handoff ? handoff.toolName : undefined;
    if (name === undefined || !guard.guarded.has(name)) throw refuse(`agent ${agent.name}'s handoff is not wrapped with this cs.handoff`);
  }
  const guarded = Object.assign(tool, guardedMembers(tool, guard));
  guard.wrapped.add(guarded);
  return guarded;
}
