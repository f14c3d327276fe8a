import type { Agent, FunctionTool, RunContext, RunResult, RunState, Tool } from '@openai/agents';

// The integration works with any app context and any agent output type: the SDK's own
// generic parameters are `any` there (its `Agent<any, any>`), and `unknown` does not
// satisfy their variance. These aliases keep that in one place.

// biome-ignore lint/suspicious/noExplicitAny: the SDK's context parameter, any app's
export type AnyTool = Tool<any>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's context, parameters and result parameters
export type AnyFunctionTool = FunctionTool<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's context parameter, any app's
export type AnyRunContext = RunContext<any>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's context and agent parameters
export type AnyRunState = RunState<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's context and output parameters
export type AnyAgent = Agent<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's agent and output parameters
export type AnyRunResult = RunResult<any, any>;
