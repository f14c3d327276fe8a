import { createHash } from 'node:crypto';
import type { MatchTool } from '../matcher/types.ts';
import type { ToolIndex } from './tool-index.ts';

/** SHA-256 over what the index reads of each tool, in order. */
function contentKey(catalogue: readonly MatchTool[]): string {
  const hash = createHash('sha256');
  for (const t of catalogue) hash.update(JSON.stringify([t.server ?? null, t.name, t.description ?? null, t.parameters ?? null])).update('\n');
  return hash.digest('hex');
}

/**
 * Indexes built once per catalogue. The same array object hits without hashing (callers pass
 * the pinned catalogue, which they do not mutate; a changed length is noticed); an equal
 * catalogue in a new array hits by content. The most recently used `maxEntries` are kept.
 */
export function createIndexCache(build: (catalogue: readonly MatchTool[]) => ToolIndex, maxEntries = 16): (catalogue: readonly MatchTool[]) => ToolIndex {
  const byIdentity = new WeakMap<readonly MatchTool[], { index: ToolIndex; length: number }>();
  const byContent = new Map<string, ToolIndex>();
  return (catalogue) => {
    const same = byIdentity.get(catalogue);
    if (same !== undefined && same.length === catalogue.length) return same.index;
    const key = contentKey(catalogue);
    let index = byContent.get(key);
    if (index === undefined) {
      index = build(catalogue);
      if (byContent.size >= maxEntries) byContent.delete(byContent.keys().next().value as string);
    } else {
      byContent.delete(key);
    }
    byContent.set(key, index);
    byIdentity.set(catalogue, { index, length: catalogue.length });
    return index;
  };
}
