import { hash } from 'node:crypto';
import { canonicalDigest } from '@countersign/core/canonical';
import type { MatchResult, MatchTool } from '../matcher/types.ts';

/**
 * Verdicts of one turn, keyed by (task digest, tool-definition digest): the same task
 * asking for the same tool (under the same definition) is matched once. A new task (the
 * next turn) or a changed definition is a new key. Only `match` and `mismatch` are kept:
 * an `uncertain` answer (timeout, error) is asked again. Bounded; oldest entries go
 * first, and entries expire after `ttlMs`.
 */
export interface TurnCache {
  get(task: string, tool: MatchTool, now?: number): MatchResult | undefined;
  set(task: string, tool: MatchTool, result: MatchResult, now?: number): void;
  readonly size: number;
}

export interface TurnCacheOptions {
  /** Default 10 000 entries. */
  maxEntries?: number | undefined;
  /** Default 10 minutes: a turn, generously. */
  ttlMs?: number | undefined;
}

export function createTurnCache(options: TurnCacheOptions = {}): TurnCache {
  const max = options.maxEntries ?? 10_000;
  const ttl = options.ttlMs ?? 10 * 60_000;
  const entries = new Map<string, { result: MatchResult; at: number }>();
  return {
    get(task, tool, now = Date.now()) {
      const key = cacheKey(task, tool);
      const hit = entries.get(key);
      if (hit === undefined) return undefined;
      if (now - hit.at > ttl) {
        entries.delete(key);
        return undefined;
      }
      return hit.result;
    },
    set(task, tool, result, now = Date.now()) {
      if (result.decision === 'uncertain') return;
      const key = cacheKey(task, tool);
      entries.delete(key);
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(key, { result, at: now });
    },
    get size() {
      return entries.size;
    },
  };
}

/** SHA-256 of the task and of the tool as the matcher sees it (its pinned definition's fields), length-free: two fixed-size digests. */
export function cacheKey(task: string, tool: MatchTool): string {
  return `${hash('sha256', task, 'hex')}:${toolDigest(tool)}`;
}

export function toolDigest(tool: MatchTool): string {
  // Through JSON first: absent optional fields (undefined) drop out, as in the pinned definition's own digest.
  return canonicalDigest(JSON.parse(JSON.stringify(tool)));
}
