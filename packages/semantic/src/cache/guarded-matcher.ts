import type { Allowlist } from '../allowlist/allowlist.ts';
import type { MatchInput, MatchResult, TaskToolMatcher } from '../matcher/types.ts';
import type { TurnCache } from './turn-cache.ts';

export interface GuardOptions {
  /** Known-good (task, tool) pairs: a hit is `match` without asking the matcher. */
  allowlist?: Allowlist | undefined;
  /** Per-turn verdicts by (task digest, tool-definition digest). */
  cache?: TurnCache | undefined;
  /** Injected time for the cache's expiry. */
  now?: (() => number) | undefined;
}

/**
 * `matcher` behind the operator's allowlist and the per-turn cache, for hot paths: an
 * allowlisted pair answers `match` (matcher id `allowlist`, so the audit says who
 * decided); a cached verdict is reused; anything else asks `matcher` and caches its
 * `match` / `mismatch` (never `uncertain`). Neither can turn a policy `deny` into
 * anything else: the gate does not ask about denied calls at all.
 */
export function guardMatcher(matcher: TaskToolMatcher, options: GuardOptions): TaskToolMatcher {
  const now = options.now ?? Date.now;
  return {
    id: matcher.id,
    async match(input: MatchInput, signal?: AbortSignal): Promise<MatchResult> {
      const vouched = options.allowlist?.find(input.task, input.tool.name);
      if (vouched !== undefined) return { decision: 'match', score: 1, matcher: 'allowlist', detail: { tool: vouched.tool } };
      const cached = options.cache?.get(input.task, input.tool, now());
      if (cached !== undefined) return { ...cached, detail: { ...cached.detail, cached: true } };
      const result = await matcher.match(input, signal);
      options.cache?.set(input.task, input.tool, result, now());
      return result;
    },
  };
}
