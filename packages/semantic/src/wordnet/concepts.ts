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

const POSES: readonly WordnetPos[] = ['n', 'v', 'a', 'r'];

/**
 * The WordNet concepts (synset keys `pos:offset`) a word can stand for: its first senses as
 * noun, verb, adjective and adverb, plus their direct hypernyms. Two words that share a
 * concept are synonyms or one names the kind of the other.
 */
export function createConceptLookup(wordnet: Wordnet, options: ConceptOptions): (word: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (word) => {
    const hit = cache.get(word);
    if (hit !== undefined) return hit;
    const concepts = new Set<string>();
    for (const pos of POSES) {
      for (const base of baseForms(wordnet, word, pos)) {
        for (const offset of wordnet.synsets(base, pos).slice(0, options.senses)) {
          concepts.add(`${pos}:${offset}`);
          if (options.hypernyms) for (const h of wordnet.hypernyms(pos, offset)) concepts.add(h);
          if (options.derivations) for (const d of wordnet.derivations(pos, offset)) concepts.add(d);
        }
      }
    }
    const result = [...concepts];
    if (cache.size > 50_000) cache.clear();
    cache.set(word, result);
    return result;
  };
}
