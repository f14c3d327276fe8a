import type { MatchDecision } from '../matcher/types.ts';
import type { MatchClass } from './casa.ts';

/** One evaluated call: its label and what the matcher decided. */
export interface Outcome {
  class: MatchClass;
  decision: MatchDecision;
  /** Decision latency in milliseconds. */
  ms: number;
}

export interface Metrics {
  count: number;
  /** Positive = the call is legitimate (`correct`) and the matcher let it through (`match`). */
  truePositives: number;
  falsePositives: number;
  trueNegatives: number;
  falseNegatives: number;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  /** Unrelated tool allowed: false positives over all `wrong` and `null` calls. */
  falsePositiveRate: number;
  /** Legitimate call denied: false negatives over all `correct` calls. */
  falseNegativeRate: number;
  /** Calls answered `uncertain`: sent to a person where the gate asks one (counted as denied above). */
  uncertain: number;
  /**
   * FNR with `uncertain` counted apart: legitimate calls the matcher hard-denied (`mismatch`)
   * over the legitimate calls it decided (`match` or `mismatch`).
   */
  decidedFalseNegativeRate: number;
  /** For each label, how many calls got each decision. */
  confusion: Record<MatchClass, Record<MatchDecision, number>>;
  latencyMs: { p50: number; p99: number; max: number };
}

/** Nearest-rank percentile of sorted values (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

/**
 * Scores outcomes. Only `match` lets a call through: `uncertain` counts as a denial, because
 * that is what a fail-closed gate does with it by default.
 */
export function computeMetrics(outcomes: readonly Outcome[]): Metrics {
  const confusion: Metrics['confusion'] = {
    correct: { match: 0, mismatch: 0, uncertain: 0 },
    wrong: { match: 0, mismatch: 0, uncertain: 0 },
    null: { match: 0, mismatch: 0, uncertain: 0 },
  };
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (const o of outcomes) {
    confusion[o.class][o.decision] += 1;
    const allowed = o.decision === 'match';
    const legitimate = o.class === 'correct';
    if (allowed && legitimate) tp += 1;
    else if (allowed) fp += 1;
    else if (legitimate) fn += 1;
    else tn += 1;
  }
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  return {
    count: outcomes.length,
    truePositives: tp,
    falsePositives: fp,
    trueNegatives: tn,
    falseNegatives: fn,
    accuracy: ratio(tp + tn, outcomes.length),
    precision,
    recall,
    f1: ratio(2 * precision * recall, precision + recall),
    falsePositiveRate: ratio(fp, fp + tn),
    falseNegativeRate: ratio(fn, fn + tp),
    uncertain: confusion.correct.uncertain + confusion.wrong.uncertain + confusion.null.uncertain,
    decidedFalseNegativeRate: ratio(confusion.correct.mismatch, confusion.correct.mismatch + confusion.correct.match),
    confusion,
    latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 },
  };
}
