import { stemOf } from '../text/tokenize.ts';
import type { WordVectors } from '../vectors/word-vectors.ts';

export interface SoftMatchOptions {
  /** Cosine under which two words are not related. */
  minSimilarity: number;
  /**
   * Floor on CSLS, 2·cos − hubness(task word) − hubness(catalogue word): a pair of generic words
   * ("thanks" / "time", "sounds" / "something") is close only because both are close to
   * everything, and falls under it; "jazz" / "music" does not.
   */
  minCsls: number;
  /** A neighbour's query weight is its cosine times this (a shared word weighs 1). */
  weight: number;
  /** Closest catalogue words kept per task word. */
  neighbours: number;
  /**
   * Task words among the most frequent this many of the vectors' vocabulary are not expanded:
   * "go", "please", "ahead" sit close to every common verb and say nothing about a tool.
   */
  skipCommon: number;
  /**
   * Expand only task words no tool of the catalogue uses: a word the catalogue has already
   * says which tools it means, and its neighbours would lift that tool's siblings too.
   */
  onlyUnmatched: boolean;
}

export interface SoftMatcher {
  /** The catalogue stems closest in meaning to a task word, with their query weights. */
  neighbours(word: string): readonly (readonly [string, number])[];
}

/** Task words remembered per catalogue: a stream of unique junk words must not grow memory without limit. */
const MAX_REMEMBERED = 10_000;

/**
 * Soft term matching over one catalogue's vocabulary: the catalogue's words that have vectors
 * are laid out once as a matrix, and a task word is compared with each of them (one dot
 * product per catalogue word, then memoized).
 */
export function createSoftMatcher(vocabulary: readonly string[], vectors: WordVectors, options: SoftMatchOptions): SoftMatcher {
  const dims = vectors.dimensions;
  const known = vocabulary.filter((w) => vectors.indexOf(w) >= 0);
  const stems = known.map(stemOf);
  const hubs = known.map((w) => vectors.hubness(vectors.indexOf(w)));
  const matrix = new Float32Array(known.length * dims);
  known.forEach((w, i) => {
    vectors.copyInto(vectors.indexOf(w), matrix, i * dims);
  });
  const query = new Float32Array(dims);
  const remembered = new Map<string, readonly (readonly [string, number])[]>();

  const compute = (word: string): readonly (readonly [string, number])[] => {
    const row = vectors.indexOf(word);
    if (row < options.skipCommon) return [];
    vectors.copyInto(row, query);
    const ownHub = vectors.hubness(row);
    const own = stemOf(word);
    const best: [string, number][] = [];
    for (let i = 0; i < known.length; i += 1) {
      let cos = 0;
      for (let d = 0; d < dims; d += 1) cos += (matrix[i * dims + d] ?? 0) * (query[d] ?? 0);
      const stem = stems[i] ?? '';
      if (cos < options.minSimilarity || stem === own || 2 * cos - ownHub - (hubs[i] ?? 0) < options.minCsls) continue;
      best.push([stem, cos * options.weight]);
    }
    best.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    // One entry per stem ("runs" and "run" are one term), the closest first.
    const seen = new Set<string>();
    return best.filter(([stem]) => !seen.has(stem) && seen.add(stem)).slice(0, options.neighbours);
  };

  return {
    neighbours(word) {
      let hit = remembered.get(word);
      if (hit === undefined) {
        hit = compute(word);
        if (remembered.size >= MAX_REMEMBERED) remembered.clear();
        remembered.set(word, hit);
      }
      return hit;
    },
  };
}
