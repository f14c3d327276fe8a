import { DEV_SET_FILE, DEV2_SET_FILE, loadDataset } from '../eval/datasets.ts';
import { createLocalExtractor } from '../extract/local-extractor.ts';
import type { DecisionModel } from './decision-model.ts';
import { FEATURE_NAMES } from './features.ts';
import { createLocalMatcher } from './local-matcher.ts';

/** Where the trained model is committed. */
export const DECISION_WEIGHTS_FILE = new URL('./decision-weights.ts', import.meta.url);

/** Keeps every match of the rules: the matcher reports each call's features, the rules decide. */
const COLLECT: DecisionModel = { weights: [], bias: 0, matchAt: 0 };

interface Row {
  x: number[];
  y: 0 | 1;
  /** Whether the rules alone allow it (the model only checks those). */
  ruledMatch: boolean;
}

/**
 * Trains the learned decision (decision-model.ts) and returns the text of decision-weights.ts.
 * Deterministic: the same data give the same text (a test checks the committed file).
 *
 * Training data: the CASA single-turn tune split, the first dev set (all of it: both of its
 * parts were looked at while tuning the second version) and the second dev set's tune split.
 * Never the independent set. The CASA and dev2 holdout splits are left out to report on.
 * `diagnose` prints the model's AUC and its trade-off against the rules on the same calls.
 */
export async function trainDecisionModel(diagnose = false): Promise<{ text: string; summary: string }> {
  const matcher = createLocalMatcher({ vectors: false, model: COLLECT });
  const rules = createLocalMatcher({ vectors: false, decision: 'rules' });
  /** The rules' decisions on the same calls (`diagnose` prints them beside the model's). */
  const ruled: string[] = [];
  const extractor = createLocalExtractor();

  const rows: Row[] = [];
  /** Negatives the model never sees (nothing fits, unreadable, an offer...): they count in the FPR denominator. */
  let negativesWithoutFeatures = 0;
  let positivesWithoutFeatures = 0;

  const sets = [
    { dataset: loadDataset('single'), part: 'tune' },
    { dataset: loadDataset(DEV_SET_FILE.pathname), part: 'all' },
    { dataset: loadDataset(DEV2_SET_FILE.pathname), part: 'tune' },
  ];
  for (const { dataset, part } of sets) {
    for (const record of dataset.records) {
      if (part !== 'all' && record.split !== part) continue;
      let task = record.task;
      let offered: readonly string[] | undefined;
      if ('conversation' in record) {
        const extracted = await extractor.extract(record.conversation);
        if (!extracted.ok) continue;
        task = extracted.task;
        offered = extracted.offered;
      }
      const result = await matcher.match({ task, tool: record.tool, catalogue: dataset.catalogue, offered });
      const features = result.detail?.features;
      const y = record.class === 'correct' ? 1 : 0;
      // Only calls the model would decide: over the floor, and not sent to a person for another reason.
      if (!Array.isArray(features) || result.detail?.reason === 'assistant_offer') {
        if (y === 1) positivesWithoutFeatures += 1;
        else negativesWithoutFeatures += 1;
        continue;
      }
      rows.push({ x: features as number[], y, ruledMatch: (features as number[])[FEATURE_NAMES.indexOf('rules_allow')] === 1 });
      if (diagnose) ruled.push(`${y}:${(await rules.match({ task, tool: record.tool, catalogue: dataset.catalogue, offered })).decision}`);
    }
  }

  // L2-regularized logistic regression, full-batch gradient descent from zero (deterministic), on
  // standardized features; the weights are then folded back onto the raw features.
  const d = FEATURE_NAMES.length;
  const mean = FEATURE_NAMES.map((_, i) => rows.reduce((sum, r) => sum + (r.x[i] ?? 0), 0) / rows.length);
  const spread = FEATURE_NAMES.map((_, i) => Math.sqrt(rows.reduce((sum, r) => sum + ((r.x[i] ?? 0) - (mean[i] ?? 0)) ** 2, 0) / rows.length) || 1);
  const z = rows.map((r) => ({ x: r.x.map((v, i) => (v - (mean[i] ?? 0)) / (spread[i] ?? 1)), y: r.y }));
  const v = new Array<number>(d).fill(0);
  let c = 0;
  const L2 = 0.01;
  const RATE = 0.5;
  const sigmoid = (t: number) => 1 / (1 + Math.exp(-t));
  for (let step = 0; step < 5_000; step += 1) {
    const gv = new Array<number>(d).fill(0);
    let gc = 0;
    for (const { x, y } of z) {
      const err = sigmoid(x.reduce((t, xi, i) => t + (v[i] ?? 0) * xi, c)) - y;
      for (let i = 0; i < d; i += 1) gv[i] = (gv[i] ?? 0) + err * (x[i] ?? 0);
      gc += err;
    }
    for (let i = 0; i < d; i += 1) v[i] = (v[i] ?? 0) - RATE * ((gv[i] ?? 0) / z.length + L2 * (v[i] ?? 0));
    c -= (RATE * gc) / z.length;
  }
  const w = v.map((vi, i) => vi / (spread[i] ?? 1));
  const b = c - v.reduce((t, vi, i) => t + (vi * (mean[i] ?? 0)) / (spread[i] ?? 1), 0);
  const p = (x: readonly number[]) => sigmoid(x.reduce((t, xi, i) => t + (w[i] ?? 0) * xi, b));

  // The threshold under which the model takes back the rules' allow: the one that minimizes, on
  // the training calls the rules allow, 3 x (wrong calls still allowed) + (correct calls sent to a
  // person). A wrong allow costs more than asking a person; the weight is this script's choice.
  const WRONG_ALLOW_COST = 3;
  const scored = rows.map((r) => ({ p: p(r.x), y: r.y, ruledMatch: r.ruledMatch })).sort((a, c) => a.p - c.p);
  const allowed = scored.filter((r) => r.ruledMatch);
  let matchAt = 0;
  let best = Number.POSITIVE_INFINITY;
  for (const t of [0, ...allowed.map((r) => r.p)]) {
    const cost = WRONG_ALLOW_COST * allowed.filter((r) => r.p >= t && r.y === 0).length + allowed.filter((r) => r.p < t && r.y === 1).length;
    if (cost < best) {
      best = cost;
      matchAt = t;
    }
  }

  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  const model: DecisionModel = { weights: w.map(round), bias: round(b), matchAt: round(matchAt) };
  const decided = (r: { p: number; ruledMatch: boolean }) => (!r.ruledMatch ? 'rules: no match' : r.p >= model.matchAt ? 'match' : 'uncertain');
  const count = (y: 0 | 1, decision: string) => scored.filter((r) => r.y === y && decided(r) === decision).length;
  const summary = `${rows.length} calls with features (${rows.filter((r) => r.y === 1).length} correct), ${positivesWithoutFeatures + negativesWithoutFeatures} decided before the model; of the rules' allows, kept / sent to a person: correct ${count(1, 'match')} / ${count(1, 'uncertain')}, others ${count(0, 'match')} / ${count(0, 'uncertain')}`;

  if (diagnose) {
    const pos = scored.filter((r) => r.y === 1);
    const neg = scored.filter((r) => r.y === 0);
    let wins = 0;
    for (const a of pos) for (const c of neg) wins += a.p > c.p ? 1 : a.p === c.p ? 0.5 : 0;
    console.log('AUC', wins / (pos.length * neg.length));
    const tally = new Map<string, number>();
    for (const k of ruled) tally.set(k, (tally.get(k) ?? 0) + 1);
    const desc = [...scored].sort((a, c) => c.p - a.p);
    let tp = 0;
    let fp = 0;
    const points: string[] = [];
    for (const r of desc) {
      if (r.y === 1) tp += 1;
      else {
        fp += 1;
        if (fp <= 20) points.push(`${fp - 1} FP: ${tp} TP (p ${r.p.toFixed(3)})`);
      }
    }
    console.log('model: correct allowed before each further false allow:', points.join('; '));
    console.log('rules on the same calls (class 1 = correct):', [...tally].sort().map(([k, n]) => `${k} ${n}`).join(', '));
  }
  const text = `import type { DecisionModel } from './decision-model.ts';

// Written by scripts/train-decision-model.ts (do not edit by hand): a logistic regression over
// features.ts's FEATURE_NAMES, trained on CASA single-turn (tune split), the dev set and the
// second dev set (tune split); never on the independent set.
// ${summary}
export const DECISION_MODEL: DecisionModel = {
  weights: [
${model.weights.map((x, i) => `    ${x}, // ${FEATURE_NAMES[i]}`).join('\n')}
  ],
  bias: ${model.bias},
  matchAt: ${model.matchAt},
};
`;
  return { text, summary };
}
