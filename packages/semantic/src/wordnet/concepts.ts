import { baseForms } from './morphy.ts';
import type { Wordnet, WordnetPos } from './wordnet.ts';

export interface ConceptOptions {
  /** Senses per part of speech kept (WordNet lists the most frequent first). */
  senses: number;
  /** Add each kept sense's hypernyms, so "delete" meets "remove" and "fetch" meets "get". */
  hypernyms: boolean;
  /** Add the synsets of derivationally related forms ("summarize" meets "summary"). */
  derivations?: boolean | undefined;
}

export const POSES: readonly WordnetPos[] = ['n', 'v', 'a', 'r'];

/** Calls `visit` with each of the first `senses` synsets of `word` (inflected or not) as each part of speech. */
export function forEachSense(wordnet: Wordnet, word: string, senses: number, visit: (pos: WordnetPos, offset: number) => void): void {
  for (const pos of POSES) {
    for (const base of baseForms(wordnet, word, pos)) {
      for (const offset of wordnet.synsets(base, pos).slice(0, senses)) visit(pos, offset);
    }
  }
}

/** A word lookup, memoized and bounded: a stream of unique junk words must not grow memory without limit. */
export function memoized(lookup: (word: string) => readonly string[]): (word: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (word) => {
    let hit = cache.get(word);
    if (hit === undefined) {
      hit = lookup(word);
      if (cache.size > 50_000) cache.clear();
      cache.set(word, hit);
    }
    return hit;
  };
}

/**
 * The WordNet concepts (synset keys `pos:offset`) a word can stand for: its first senses as
 * noun, verb, adjective and adverb, plus their direct hypernyms. Two words that share a
 * concept are synonyms or one names the kind of the other.
 */
export function createConceptLookup(wordnet: Wordnet, options: ConceptOptions): (word: string) => readonly string[] {
  return memoized((word) => {
    const concepts = new Set<string>();
    forEachSense(wordnet, word, options.senses, (pos, offset) => {
      concepts.add(`${pos}:${offset}`);
      if (options.hypernyms) for (const h of wordnet.hypernyms(pos, offset)) concepts.add(h);
      if (options.derivations) for (const d of wordnet.derivations(pos, offset)) concepts.add(d);
    });
    return [...concepts];
  });
}
