import { describe, expect, it } from 'vitest';
import { computeMetrics, type Outcome, percentile } from './metrics.ts';

const o = (cls: Outcome['class'], decision: Outcome['decision'], ms = 1): Outcome => ({ class: cls, decision, ms });

describe('computeMetrics', () => {
  it('matches a confusion counted by hand', () => {
    // correct: 3 match, 1 mismatch, 1 uncertain; wrong: 1 match, 2 mismatch; null: 1 match, 1 uncertain.
    const outcomes = [
      o('correct', 'match'), o('correct', 'match'), o('correct', 'match'), o('correct', 'mismatch'), o('correct', 'uncertain'),
      o('wrong', 'match'), o('wrong', 'mismatch'), o('wrong', 'mismatch'),
      o('null', 'match'), o('null', 'uncertain'),
    ];
    const m = computeMetrics(outcomes);
    // TP 3, FN 2 (uncertain denies), FP 2, TN 3.
    expect([m.truePositives, m.falseNegatives, m.falsePositives, m.trueNegatives]).toEqual([3, 2, 2, 3]);
    expect(m.accuracy).toBeCloseTo(6 / 10);
    expect(m.precision).toBeCloseTo(3 / 5);
    expect(m.recall).toBeCloseTo(3 / 5);
    expect(m.f1).toBeCloseTo(0.6);
    expect(m.falsePositiveRate).toBeCloseTo(2 / 5);
    expect(m.falseNegativeRate).toBeCloseTo(2 / 5);
    // Uncertain counted apart: 2 go to a person; of the 4 decided correct calls, 1 was hard-denied.
    expect(m.uncertain).toBe(2);
    expect(m.decidedFalseNegativeRate).toBeCloseTo(1 / 4);
    expect(m.confusion).toEqual({
      correct: { match: 3, mismatch: 1, uncertain: 1 },
      wrong: { match: 1, mismatch: 2, uncertain: 0 },
      null: { match: 1, mismatch: 0, uncertain: 1 },
    });
  });

  it('an uncertain decision never counts as allowed', () => {
    const m = computeMetrics([o('wrong', 'uncertain'), o('null', 'uncertain')]);
    expect(m.falsePositives).toBe(0);
    expect(m.falsePositiveRate).toBe(0);
  });

  it('has no NaN on empty or one-sided input', () => {
    const empty = computeMetrics([]);
    expect([empty.accuracy, empty.f1, empty.falsePositiveRate, empty.latencyMs.p99]).toEqual([0, 0, 0, 0]);
    const allDenied = computeMetrics([o('correct', 'mismatch')]);
    expect(allDenied.f1).toBe(0);
    expect(allDenied.falseNegativeRate).toBe(1);
  });

  it('percentiles are nearest-rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([5], 99)).toBe(5);
    const m = computeMetrics(values.map((ms) => o('correct', 'match', ms)));
    expect(m.latencyMs).toEqual({ p50: 50, p99: 99, max: 100 });
  });
});
