import type { MatchDecision } from '../matcher/types.ts';

/** Where the requested tool stands among the tools ranked for the task. */
export interface Standing {
  /** 1-based rank among the tools of its own server (ties rank in its favour). */
  serverRank: number;
  /** 1-based rank in the whole catalogue. */
  catalogueRank: number;
  /** Its score over the best score of its server, 0..1 (1 when it is the best). */
  serverRatio: number;
  /** Its score over the best score in the catalogue, 0..1. */
  catalogueRatio: number;
  /** Its own score, and the best score of any tool (BM25F, absolute). */
  score: number;
  bestScore: number;
  /** The best score of any other tool of the catalogue (0 when it is alone). */
  bestOther: number;
  /** Distinct words of the task: a long text piles up score from incidental overlap. */
  taskTerms: number;
  /**
   * The weight of a word that only one tool of the catalogue has (its BM25 IDF). Scores grow
   * with the catalogue's size, so the floor is counted in this unit: it means the same in a
   * small and a large catalogue.
   */
  unit: number;
}

export interface DecisionThresholds {
  /** Deny when the tool ranks below this among its server's tools. */
  maxServerRank: number;
  /** Deny when its score is under this fraction of the best tool of its server. */
  minServerRatio: number;
  /** Deny when its score is under this fraction of the best tool of the catalogue (a better tool elsewhere). */
  minCatalogueRatio: number;
  /**
   * The absolute relevance floor, in units of one catalogue-unique word (`Standing.unit`): a
   * score under it is no evidence of fit, whatever the other tools score. When even the best
   * tool is under it, nothing fits the task (`uncertain`).
   */
  minScore: number;
  /**
   * Per distinct word of the task: a long text must score in proportion to its length. A pasted
   * document shares a few words with some tool by chance; a request uses most of its words to
   * say what it wants.
   */
  minScorePerTerm: number;
}

/** The floor, in score, for a task of `terms` distinct words. */
export function floorFor(terms: number, unit: number, t: DecisionThresholds): number {
  return unit * Math.max(t.minScore, t.minScorePerTerm * terms);
}

/**
 * A tool serves the task when its score clears an absolute floor, it is near the top of its own
 * server's tools, close to the best of them, and no tool anywhere in the catalogue fits much
 * better. Text that fits no tool ("ok", pasted license text, an unrelated request) is
 * `uncertain`; anything else is a mismatch. The local matcher is only ever used to deny.
 */
export function matchByStanding(standing: Standing, t: DecisionThresholds): MatchDecision {
  const floor = floorFor(standing.taskTerms, standing.unit, t);
  if (standing.bestScore < floor) return 'uncertain';
  if (standing.score < floor) return 'mismatch';
  if (standing.serverRank > t.maxServerRank) return 'mismatch';
  if (standing.serverRatio < t.minServerRatio) return 'mismatch';
  if (standing.catalogueRatio < t.minCatalogueRatio) return 'mismatch';
  return 'match';
}
