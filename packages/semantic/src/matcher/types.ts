/**
 * The semantic layer's shared interface: a task extractor turns a conversation into one
 * sentence; a matcher decides whether a requested tool serves that task. A matcher can only
 * deny (mismatch) or defer (uncertain); `match` never allows a call on its own.
 */

/** The tool as the matcher sees it: from the pinned definition only. */
export interface MatchTool { name: string; description?: string | undefined; parameters?: Record<string, { description?: string | undefined; type?: string | undefined }> | undefined; server?: string | undefined; }
export interface MatchInput {
  task: string;
  tool: MatchTool;
  catalogue: readonly MatchTool[];
  /**
   * Offers of the assistant that the user accepted with a bare reply ("ok sure"): the
   * assistant's words, not the user's. A tool that fits only these is `uncertain` (a person
   * decides), never `match`.
   */
  offered?: readonly string[] | undefined;
}
export type MatchDecision = 'match' | 'mismatch' | 'uncertain';
export interface MatchResult { decision: MatchDecision; score: number; matcher: string; detail?: Record<string, unknown> | undefined; }
export interface TaskToolMatcher { readonly id: string; match(input: MatchInput, signal?: AbortSignal): Promise<MatchResult>; }
export interface ConversationMessage { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; }
/** `task` is the user's own goal; `offered` are the assistant's offers the user accepted with a bare reply. */
export type Extraction = { ok: true; task: string; offered?: readonly string[] | undefined } | { ok: false; reason: string };
export interface TaskExtractor { readonly id: string; extract(messages: readonly ConversationMessage[], signal?: AbortSignal): Promise<Extraction>; }
