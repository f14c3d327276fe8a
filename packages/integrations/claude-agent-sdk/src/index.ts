export { runtimeToolDefinitions } from './built-in-tools.ts';
export { type CountersignClaudeHooks, type CountersignClaudeOptions, countersignHooks } from './hooks.ts';
