import { describe, expect, it } from 'vitest';
import { DEV_SET_FILE, loadDataset } from '../eval/datasets.ts';
import type { MatchTool } from '../matcher/types.ts';
import { loadWordVectors } from '../vectors/word-vectors.ts';
import { createLocalMatcher, DEFAULT_SOFT_MATCH, LOCAL_MATCHER_ID, LOCAL_WORDS_MATCHER_ID } from './local-matcher.ts';
import { createSoftMatcher } from './soft-match.ts';

// What word vectors add to the local matcher, and what they must not: each attack below passes
// a tool through when its guard is off (checked by turning it off once, see the README).
const catalogue: MatchTool[] = loadDataset(DEV_SET_FILE.pathname).catalogue;
const tool = (name: string) => {
  const found = catalogue.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};
const withVectors = createLocalMatcher();
const withoutVectors = createLocalMatcher({ vectors: false });
const allowedFor = async (text: string, tools: MatchTool[] = catalogue, matcher = withVectors) => {
  const allowed: string[] = [];
  for (const t of tools) if ((await matcher.match({ task: text, tool: t, catalogue: tools })).decision === 'match') allowed.push(t.name);
  return allowed;
};

describe('local matcher with word vectors', () => {
  it('is the default, and `vectors: false` is the previous matcher', () => {
    expect(withVectors.id).toBe(LOCAL_MATCHER_ID);
    expect(LOCAL_MATCHER_ID).toBe('local-bm25f-wordnet-vectors@1');
    expect(withoutVectors.id).toBe(LOCAL_WORDS_MATCHER_ID);
  });

  it('a paraphrase that shares no word with the tool reaches it ("a mix of upbeat tunes" → create_playlist)', async () => {
    for (const [task, name] of [
      ['make me a mix of upbeat tunes for running', 'create_playlist'],
      ['make it warmer in here, around 22 degrees', 'set_thermostat'],
      ['switch off everything in the kitchen ceiling, I am going to bed', 'set_light_state'],
    ] as const) {
      expect((await withVectors.match({ task, tool: tool(name), catalogue })).decision, task).toBe('match');
      expect((await withoutVectors.match({ task, tool: tool(name), catalogue })).decision, task).not.toBe('match');
    }
  });

  it('an acknowledgement fits no tool: generic words are close to every tool word only as hubs', async () => {
    for (const text of ['sounds good, thanks', 'perfect, thank you so much', 'cool, cheers', 'great, that sounds lovely', 'alright, sure thing', 'ok', 'yes please go ahead', 'explain how photosynthesis works']) {
      expect(await allowedFor(text), text).toEqual([]);
    }
  });

  it('common words are not expanded, and a pair of hubs is not a neighbour', () => {
    const vocabulary = ['something', 'time', 'music', 'remind', 'songs'];
    const soft = createSoftMatcher(vocabulary, loadWordVectors(), DEFAULT_SOFT_MATCH);
    expect(soft.neighbours('go')).toEqual([]);
    expect(soft.neighbours('thanks')).toEqual([]);
    expect(soft.neighbours('sounds')).toEqual([]);
    expect(soft.neighbours('jazz').map(([stem]) => stem)).toContain('music');
    expect(soft.neighbours('zzqx')).toEqual([]);
  });

  it('a flagged keyword-list description gains nothing from vectors', async () => {
    const stuffed = tool('assist_anything');
    for (const task of ['where is my parcel', 'put on some jazz', 'book a hotel room in Berlin', 'translate this sentence into French', 'make me a mix of upbeat tunes']) {
      expect((await withVectors.match({ task, tool: stuffed, catalogue })).decision, task).not.toBe('match');
    }
  });

  it('a description stuffed with generic agent words in prose is allowed for no more unrelated tasks than without vectors', async () => {
    const generic: MatchTool = {
      server: 'helper',
      name: 'do_task',
      description: 'Helps you get things done: handles any request, question, job or errand you have, quickly and reliably, whenever you need something.',
    };
    const tools = [...catalogue.filter((t) => t.name !== 'assist_anything'), generic];
    const tasks = ['put on some jazz', 'how much was I paid in March', 'sounds good, thanks', 'what is the weather like tomorrow', 'remind me to water the plants', 'cancel my gym membership', 'where is my parcel'];
    let withCount = 0;
    let withoutCount = 0;
    for (const task of tasks) {
      if ((await withVectors.match({ task, tool: generic, catalogue: tools })).decision === 'match') withCount += 1;
      if ((await withoutVectors.match({ task, tool: generic, catalogue: tools })).decision === 'match') withoutCount += 1;
    }
    expect(withCount).toBeLessThanOrEqual(withoutCount);
    expect(withCount).toBe(0);
  });

  it('a tool identifier in the task still counts for nothing, and its neighbours neither', async () => {
    const task = 'make me a mix of upbeat tunes for running, then drop_table';
    expect((await withVectors.match({ task, tool: tool('drop_table'), catalogue })).decision).not.toBe('match');
    expect((await withVectors.match({ task, tool: tool('create_playlist'), catalogue })).decision).toBe('match');
  });
});
