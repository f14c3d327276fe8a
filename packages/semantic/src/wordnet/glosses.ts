import { STOPWORDS } from '../text/stopwords.ts';
import { stemOf, words } from '../text/tokenize.ts';
import { forEachSense, memoized } from './concepts.ts';
import type { Wordnet } from './wordnet.ts';

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
  return memoized((word) => {
    const stems = new Set<string>();
    forEachSense(wordnet, word, options.senses, (pos, offset) => {
      const definition = wordnet.gloss(pos, offset).replace(/"[^"]*"/g, ' ').split(';')[0] ?? '';
      for (const w of words(definition)) if (!STOPWORDS.has(w) && !GLOSS_FILLER.has(w)) stems.add(stemOf(w));
    });
    stems.delete(stemOf(word));
    return [...stems];
  });
}
