export type {
  ConversationMessage,
  MatchDecision,
  MatchInput,
  MatchResult,
  MatchTool,
  TaskExtractor,
  TaskToolMatcher,
} from './matcher/types.ts';
