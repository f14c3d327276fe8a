export { runtimeToolDefinitions } from './built-in-tools.ts';
export { type CountersignClaudeAgent, type CountersignClaudeAgentOptions, countersignClaudeAgent } from './claude-agent.ts';
export { type ClaudeRefusal, type CountersignClaudeHooks, type CountersignClaudeOptions, countersignHooks } from './hooks.ts';
