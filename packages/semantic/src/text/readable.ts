import { POSES } from '../wordnet/concepts.ts';
import { baseForms } from '../wordnet/morphy.ts';
import type { Wordnet } from '../wordnet/wordnet.ts';
import { STOPWORDS } from './stopwords.ts';
import { allWords } from './tokenize.ts';

/** Fewer words than this say too little to judge the language by. */
const MIN_WORDS = 4;
/** Below this share of English words, the task is in a language the matcher cannot read. */
export const MIN_ENGLISH_SHARE = 0.5;

/**
 * Whether the matcher can read a task: the share of its words that are English (a stopword, or
 * a word of three letters or more that WordNet knows, inflected or not) or that the catalogue
 * itself uses. A German or Spanish request shares a few words with English by accident
 * ("hotel", "Madrid"); a lexical matcher would decide on those alone, so such a task is
 * `uncertain` (a person decides) rather than a mismatch.
 */
export function readability(task: string, wordnet: Wordnet, vocabulary: ReadonlySet<string>): { readable: boolean; share: number } {
  const ws = allWords(task);
  if (ws.length < MIN_WORDS) return { readable: true, share: 1 };
  let known = 0;
  for (const w of ws) {
    if (STOPWORDS.has(w) || vocabulary.has(w) || (/^[a-z]{3,}$/.test(w) && POSES.some((pos) => baseForms(wordnet, w, pos).length > 0))) known += 1;
  }
  const share = known / ws.length;
  return { readable: share >= MIN_ENGLISH_SHARE, share };
}
