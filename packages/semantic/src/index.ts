// The local side: matcher, extractor, evaluation.
export type {
  ConversationMessage,
  Extraction,
  MatchDecision,
  MatchInput,
  MatchResult,
  MatchTool,
  TaskExtractor,
  TaskToolMatcher,
} from './matcher/types.ts';
export { BASELINE_MATCHER_ID, createBaselineMatcher, createLocalMatcher, DEFAULT_RANKING, DEFAULT_SOFT_MATCH, DEFAULT_THRESHOLDS, LOCAL_MATCHER_ID, LOCAL_WORDS_MATCHER_ID, type LocalMatcherOptions } from './local/local-matcher.ts';
export type { DecisionThresholds, Standing } from './local/standing-rules.ts';
export type { SoftMatchOptions } from './local/soft-match.ts';
export { words } from './text/tokenize.ts';
export { loadWordVectors, type WordVectors, WordVectorsError } from './vectors/word-vectors.ts';
export { BROAD_LIST_ITEMS, BROAD_LIST_TOPICS, checkDefinition, type DefinitionCheck } from './local/definition-check.ts';
export { computeMetrics, type Metrics, type Outcome } from './eval/metrics.ts';
export { createLocalExtractor, LOCAL_EXTRACTOR_ID, type LocalExtractorOptions } from './extract/local-extractor.ts';
export { type EvalRecord, loadCasaCatalogue, loadCasaSingleTurn, type MatchClass, type Split, splitOf, toMatchTool } from './eval/casa.ts';
export { type Dataset, DatasetError, DEV_SET_FILE, evalSetNames, INDEPENDENT_DIR, loadDataset } from './eval/datasets.ts';
export { toMultiTurn, type MultiTurnRecord } from './eval/multi-turn.ts';
export { type EvalOptions, type EvalReport, type ExtractionStats, runEval } from './eval/run-eval.ts';
export { formatReport } from './eval/format-report.ts';
// The gate's side: LLM matcher/extractor, cache, allowlist, task summaries, the config section.
export { type Allowlist, type AllowlistEntry, AllowlistError, compileAllowlist, normalizeTask } from './allowlist/allowlist.ts';
export { type GuardOptions, guardMatcher } from './cache/guarded-matcher.ts';
export { createTurnCache, type TurnCache, type TurnCacheOptions } from './cache/turn-cache.ts';
export { type ChatEndpoint, createLlmExtractor, createLlmMatcher, type LlmExtractorOptions, type LlmMatcherOptions } from './llm/index.ts';
export { type SealedTask, TaskKeyError } from './tasks/sealed-task.ts';
export { memoryTaskBackend, type TaskSummaryBackend, TaskSummaryStore, type TaskSummaryStoreOptions } from './tasks/task-summary-store.ts';
export { type BuiltSemantic, buildSemantic, type SemanticConfig, SemanticConfigError, semanticConfigSchema, type SemanticFactories } from './config/semantic-config.ts';
