export type {
  ConversationMessage,
  MatchDecision,
  MatchInput,
  MatchResult,
  MatchTool,
  TaskExtractor,
  TaskToolMatcher,
} from './matcher/types.ts';
export { createLocalMatcher, DEFAULT_RANKING, DEFAULT_THRESHOLDS, LOCAL_MATCHER_ID, type LocalMatcherOptions } from './local/local-matcher.ts';
export type { DecisionThresholds, Standing } from './local/decide.ts';
export { computeMetrics, type Metrics, type Outcome } from './eval/metrics.ts';
export { createLocalExtractor, LOCAL_EXTRACTOR_ID, type LocalExtractorOptions } from './extract/local-extractor.ts';
