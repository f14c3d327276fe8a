import type { MatchDecision } from '../matcher/types.ts';
import { FEATURE_NAMES } from './features.ts';

/**
 * A logistic regression over `FEATURE_NAMES` that checks the rules' `match`: a tool the rank
 * and ratio rules allow keeps its `match` only when the model's probability that it serves the
 * task is at least `matchAt`; under it, the model doubts what the rules saw and a person
 * decides (`uncertain`). It never turns a mismatch into a match: it can only take an allow back.
 */
export interface DecisionModel {
  /** One weight per feature, in `FEATURE_NAMES` order. */
  weights: readonly number[];
  bias: number;
  matchAt: number;
}

export function probabilityOf(model: DecisionModel, features: readonly number[]): number {
  let z = model.bias;
  for (let i = 0; i < FEATURE_NAMES.length; i += 1) z += (model.weights[i] ?? 0) * (features[i] ?? 0);
  return 1 / (1 + Math.exp(-z));
}

/** The rules' decision, checked by the model: only a `match` can change, and only to `uncertain`. */
export function decideByModel(model: DecisionModel, ruled: MatchDecision, probability: number): MatchDecision {
  return ruled === 'match' && !(probability >= model.matchAt) ? 'uncertain' : ruled;
}
