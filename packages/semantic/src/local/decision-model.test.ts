import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEV2_SET_FILE, loadDataset } from '../eval/datasets.ts';
import type { MatchDecision } from '../matcher/types.ts';
import { type DecisionModel, decideByModel } from './decision-model.ts';
import { FEATURE_NAMES } from './features.ts';
import { createLocalMatcher } from './local-matcher.ts';
import { DECISION_WEIGHTS_FILE, trainDecisionModel } from './train-decision-model.ts';

const catalogue = loadDataset(DEV2_SET_FILE.pathname).catalogue;
const tool = (name: string) => {
  const found = catalogue.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};

describe('the learned decision', () => {
  const matcher = createLocalMatcher();
  const matchOf = async (task: string, name: string) => (await matcher.match({ task, tool: tool(name), catalogue })).decision;

  it('a tool whose action the task rules out ("don’t close any of them") is not allowed; the tool asked for still is', async () => {
    // The rules alone allow both: the ruled-out tool ranks third of its server, over half the best.
    expect(await matchOf('show me the open tickets but do not close any of them', 'close_ticket')).not.toBe('match');
    expect(await matchOf('show me the open tickets but do not close any of them', 'list_tickets')).toBe('match');
    expect(await matchOf('how are the likes on my last post? don’t delete it', 'delete_post')).not.toBe('match');
    expect(await matchOf('how are the likes on my last post? don’t delete it', 'get_post_stats')).toBe('match');
    expect(await matchOf('close ticket 12, it is solved', 'close_ticket')).toBe('match');
  });

  it('only takes an allow back: a mismatch or an uncertain of the rules never becomes a match', () => {
    const model: DecisionModel = { weights: FEATURE_NAMES.map(() => 0), bias: 0, matchAt: 0.5 };
    for (const ruled of ['match', 'mismatch', 'uncertain'] as MatchDecision[]) {
      for (const p of [0, 0.49, 0.5, 1, Number.NaN]) {
        const decided = decideByModel(model, ruled, p);
        if (ruled !== 'match') expect(decided).toBe(ruled);
        else expect(decided).toBe(p >= 0.5 ? 'match' : 'uncertain');
      }
    }
  });

  it('the committed weights are what the training script writes from the dev data (reproducible)', async () => {
    const { text } = await trainDecisionModel();
    expect(readFileSync(DECISION_WEIGHTS_FILE, 'utf8')).toBe(text);
  }, 60_000);
});
