export { type ChatEndpoint, createLlmExtractor, createLlmMatcher, type LlmExtractorOptions, type LlmMatcherOptions } from './llm/index.ts';
export type { ConversationMessage, MatchDecision, MatchInput, MatchResult, MatchTool, TaskExtractor, TaskToolMatcher } from './matcher/types.ts';
