/** The tool as the matcher sees it: from the pinned definition only. */
export interface MatchTool { name: string; description?: string | undefined; parameters?: Record<string, { description?: string | undefined; type?: string | undefined }> | undefined; server?: string | undefined; }
export interface MatchInput { task: string; tool: MatchTool; catalogue: readonly MatchTool[]; }
export type MatchDecision = 'match' | 'mismatch' | 'uncertain';
export interface MatchResult { decision: MatchDecision; score: number; matcher: string; detail?: Record<string, unknown> | undefined; }
export interface TaskToolMatcher { readonly id: string; match(input: MatchInput, signal?: AbortSignal): Promise<MatchResult>; }
export interface ConversationMessage { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; }
export interface TaskExtractor { readonly id: string; extract(messages: readonly ConversationMessage[], signal?: AbortSignal): Promise<{ ok: true; task: string } | { ok: false; reason: string }>; }
