import type { DecisionModel } from './decision-model.ts';

// Written by scripts/train-decision-model.ts (do not edit by hand): a logistic regression over
// features.ts's FEATURE_NAMES, trained on CASA single-turn (tune split), the dev set and the
// second dev set (tune split); never on the independent set.
// 271 calls with features (138 correct), 51 decided before the model; of the rules' allows, kept / sent to a person: correct 86 / 2, others 9 / 3
export const DECISION_MODEL: DecisionModel = {
  weights: [
    0.9897, // log_score_units
    -0.3835, // score_per_task_word
    -0.5054, // catalogue_ratio
    0.4316, // server_ratio
    0.6837, // top_of_server
    -0.7372, // top_of_catalogue
    0.2648, // margin_units
    -0.1046, // name_coverage
    0.8969, // verb_asked
    -4.1801, // verb_negated
    -0.2963, // log_task_words
    1.4209, // rules_allow
  ],
  bias: -0.0841,
  matchAt: 0.732,
};
