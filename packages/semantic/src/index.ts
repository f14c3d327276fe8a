// Engineer G's exports (gate wiring, LLM matcher/extractor, cache, allowlist, task summaries), kept in one block.
export { type Allowlist, type AllowlistEntry, AllowlistError, compileAllowlist, normalizeTask } from './allowlist/allowlist.ts';
export { type GuardOptions, guardMatcher } from './cache/guarded-matcher.ts';
export { createTurnCache, type TurnCache, type TurnCacheOptions } from './cache/turn-cache.ts';
export { type ChatEndpoint, createLlmExtractor, createLlmMatcher, type LlmExtractorOptions, type LlmMatcherOptions } from './llm/index.ts';
export type { ConversationMessage, MatchDecision, MatchInput, MatchResult, MatchTool, TaskExtractor, TaskToolMatcher } from './matcher/types.ts';
export { type SealedTask, TaskKeyError } from './tasks/sealed-task.ts';
export { memoryTaskBackend, type TaskSummaryBackend, TaskSummaryStore, type TaskSummaryStoreOptions } from './tasks/task-summary-store.ts';
export { type BuiltSemantic, buildSemantic, type SemanticConfig, SemanticConfigError, semanticConfigSchema, type SemanticFactories } from './config/semantic-config.ts';
