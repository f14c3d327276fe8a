import stem from 'wink-porter2-stemmer';
import { STOPWORDS } from './stopwords.ts';

/** Longest word kept: longer runs are identifiers or hashes, not vocabulary. */
const MAX_WORD = 40;

/**
 * Lower-case letter runs of any script ("Überweise" stays one word, as does "última"):
 * identifiers are split at camelCase, snake_case, kebab-case and dots first
 * (`listWorkflowRuns`, `list_workflow_runs` → list, workflow, runs). Digits-only tokens are dropped.
 */
export function allWords(text: string): string[] {
  const out: string[] = [];
  const spaced = text
    .normalize('NFC')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    // "HTTPServer" → HTTP Server; a lookahead, so a long run of capitals is one linear pass.
    .replace(/(\p{Lu})(?=\p{Lu}\p{Ll})/gu, '$1 ')
    .toLowerCase();
  for (const match of spaced.matchAll(/\p{L}[\p{L}\p{M}\p{N}'\u2019]*/gu)) {
    // Contractions lose their clitic ("don't" → do, "I’m" → i), so they meet the stopword list.
    const word = match[0]
      .replace(/n['\u2019]t$/, '')
      .replace(/['\u2019](?:s|m|ve|re|ll|d)$/, '')
      .replace(/['\u2019]/g, '');
    if (word.length < 2 || word.length > MAX_WORD) continue;
    out.push(word);
  }
  return out;
}

/** The words of a text that carry a topic: `allWords` without stopwords. */
export function words(text: string): string[] {
  return allWords(text).filter((w) => !STOPWORDS.has(w));
}

const stemCache = new Map<string, string>();

/** Porter2 stem of a lower-case word, memoized (the vocabulary of tasks and tools is small). */
export function stemOf(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    // Porter2 is an English stemmer: a word in another script or with accents is kept whole.
    stemmed = /^[a-z0-9]+$/.test(word) ? stem(word) : word;
    // Bounded: a stream of unique junk words must not grow memory without limit.
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}
