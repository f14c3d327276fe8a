// Trains the local matcher's learned decision (src/local/decision-model.ts) and writes
// src/local/decision-weights.ts. Deterministic: the same data give the same file.
// Run from the repository root: node --conditions=countersign-source packages/semantic/scripts/train-decision-model.ts
//
// Training data: the CASA single-turn tune split, the first dev set (all of it: both of its
// parts were looked at while tuning the second version) and the second dev set's tune split.
// Never the independent set. The CASA and dev2 holdout splits are left out to report on.
import { writeFileSync } from 'node:fs';
import { DECISION_WEIGHTS_FILE, trainDecisionModel } from '../src/local/train-decision-model.ts';

const { text, summary } = await trainDecisionModel(process.env.DIAGNOSE === '1');
writeFileSync(DECISION_WEIGHTS_FILE, text);
console.log(summary);
console.log(`wrote ${DECISION_WEIGHTS_FILE.pathname}`);
