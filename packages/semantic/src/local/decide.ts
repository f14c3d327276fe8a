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
}

export interface DecisionThresholds {
  /** Deny when the tool ranks below this among its server's tools. */
  maxServerRank: number;
  /** Deny when its score is under this fraction of the best tool of its server. */
  minServerRatio: number;
  /** Deny when its score is under this fraction of the best tool of the catalogue (a better tool elsewhere). */
  minCatalogueRatio: number;
}

/**
 * A tool serves the task when it is near the top of its own server's tools, close to the best
 * of them, and no tool anywhere in the catalogue fits much better. Anything else is a
 * mismatch: the local matcher is only ever used to deny.
 */
export function decide(standing: Standing, t: DecisionThresholds): MatchDecision {
  if (standing.serverRank > t.maxServerRank) return 'mismatch';
  if (standing.serverRatio < t.minServerRatio) return 'mismatch';
  if (standing.catalogueRatio < t.minCatalogueRatio) return 'mismatch';
  return 'match';
}
