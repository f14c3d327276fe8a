import type { MatchTool } from '../matcher/types.ts';
import { stemOf, words } from '../text/tokenize.ts';
import { memoized } from '../wordnet/concepts.ts';
import type { Standing } from './standing-rules.ts';

/** A word as the matcher compares it: its stem and, with WordNet, its concepts. */
export type WordKeys = (word: string) => readonly string[];

/** What is known of the task's words, computed once per decision. */
export interface TaskWords {
  /** Stems and concepts of the words the task asks with. */
  asked: ReadonlySet<string>;
  /** Stems and concepts of the words under a negation ("don't close …"). */
  negated: ReadonlySet<string>;
}

export function taskWords(asked: string, negated: readonly string[], keys: WordKeys): TaskWords {
  const set = (ws: readonly string[]) => new Set(ws.flatMap((w) => keys(w)));
  return { asked: set(words(asked)), negated: set(negated.filter((w) => words(w).length > 0)) };
}

/** Stem, plus concepts when a lookup is given; memoized like the concept lookup itself. */
export function wordKeys(concepts: ((word: string) => readonly string[]) | undefined): WordKeys {
  return memoized((word) => [stemOf(word), ...(concepts?.(word) ?? []).map((c) => `~${c}`)]);
}

/**
 * The interpretable features the learned decision weighs, in `FEATURE_NAMES` order. Each says
 * something a person would check: does the tool score in absolute terms (in units of one
 * catalogue-unique word), against the best tool of its server and of the catalogue, by how much
 * it leads or trails, does the task say the tool's action and its object (the words of its
 * name, verb first), did the task rule that action out ("don't close any"), and would the
 * hand-set rank and ratio rules allow it.
 */
export const FEATURE_NAMES = [
  'log_score_units',
  'score_per_task_word',
  'catalogue_ratio',
  'server_ratio',
  'top_of_server',
  'top_of_catalogue',
  'margin_units',
  'name_coverage',
  'verb_asked',
  'verb_negated',
  'log_task_words',
  'rules_allow',
] as const;

/** `rulesAllow`: the rank-and-ratio rules of standing-rules.ts would allow it (the second version's decision, as evidence). */
export function decisionFeatures(standing: Standing, tool: MatchTool, task: TaskWords, keys: WordKeys, rulesAllow: boolean): number[] {
  const unit = standing.unit > 0 ? standing.unit : 1;
  const nameWords = words(tool.name);
  const hit = (w: string, in_: ReadonlySet<string>) => keys(w).some((k) => in_.has(k));
  const covered = nameWords.filter((w) => hit(w, task.asked)).length;
  const verb = nameWords[0];
  const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
  return [
    Math.log1p(standing.score / unit),
    clamp(standing.score / (unit * Math.max(1, standing.taskTerms)), 0, 3),
    standing.catalogueRatio,
    standing.serverRatio,
    standing.serverRank === 1 ? 1 : 0,
    standing.catalogueRank === 1 ? 1 : 0,
    clamp((standing.score - standing.bestOther) / unit, -3, 3),
    nameWords.length === 0 ? 0 : covered / nameWords.length,
    verb !== undefined && hit(verb, task.asked) ? 1 : 0,
    verb !== undefined && hit(verb, task.negated) ? 1 : 0,
    Math.log1p(standing.taskTerms),
    rulesAllow ? 1 : 0,
  ];
}
