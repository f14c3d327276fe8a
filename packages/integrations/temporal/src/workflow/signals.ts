import { defineSignal } from '@temporalio/workflow';
import { DECISION_SIGNAL, type DecisionSignal } from './contract.ts';

/** The decision signal (see `DecisionSignal`): wakes a waiting workflow; never evidence. */
export const decisionSignal = defineSignal<[DecisionSignal]>(DECISION_SIGNAL);
