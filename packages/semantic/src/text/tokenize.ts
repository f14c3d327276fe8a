import stem from 'wink-porter2-stemmer';
import { STOPWORDS } from './stopwords.ts';

/** Longest word kept: longer runs are identifiers or hashes, not vocabulary. */
const MAX_WORD = 40;

/**
 * Splits text into lower-case words: identifiers are split at camelCase, snake_case,
 * kebab-case and dots (`listWorkflowRuns`, `list_workflow_runs` → list, workflow, runs).
 * Digits-only tokens and stopwords are dropped.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  for (const match of spaced.matchAll(/[a-z][a-z0-9']*/g)) {
    const word = match[0].replace(/'s$/, '').replace(/'/g, '');
    if (word.length < 2 || word.length > MAX_WORD || STOPWORDS.has(word)) continue;
    out.push(word);
  }
  return out;
}

const stemCache = new Map<string, string>();

/** Porter2 stem of a lower-case word, memoized (the vocabulary of tasks and tools is small). */
export function stemOf(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    // Bounded: a stream of unique junk words must not grow memory without limit.
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}
