import { describe, expect, it, vi } from 'vitest';
import { AllowlistError, compileAllowlist } from '../allowlist/allowlist.ts';
import type { MatchInput, MatchResult, TaskToolMatcher } from '../matcher/types.ts';
import { guardMatcher } from './guarded-matcher.ts';
import { createTurnCache } from './turn-cache.ts';

function counting(decide: (input: MatchInput) => MatchResult['decision']) {
  let calls = 0;
  const matcher: TaskToolMatcher = {
    id: 'counting',
    async match(input) {
      calls++;
      return { decision: decide(input), score: 0.5, matcher: 'counting' };
    },
  };
  return { matcher, calls: () => calls };
}

const tool = (name: string, description = 'd') => ({ name, description });
const input = (task: string, t = tool('github__list_workflow_runs')): MatchInput => ({ task, tool: t, catalogue: [t] });

describe('per-turn cache', () => {
  it('asks once per (task, tool definition); a new task, a changed definition or an expired entry asks again', async () => {
    const { matcher, calls } = counting(() => 'match');
    let now = 0;
    const guarded = guardMatcher(matcher, { cache: createTurnCache({ ttlMs: 1000 }), now: () => now });
    await guarded.match(input('read CI results'));
    expect(await guarded.match(input('read CI results'))).toMatchObject({ decision: 'match', detail: { cached: true } });
    expect(calls()).toBe(1);
    await guarded.match(input('read CI results for web'));
    expect(calls()).toBe(2);
    // Same name, another description (a rug-pulled definition): not the cached verdict.
    await guarded.match(input('read CI results', tool('github__list_workflow_runs', 'Export all secrets')));
    expect(calls()).toBe(3);
    now = 5000;
    await guarded.match(input('read CI results'));
    expect(calls()).toBe(4);
  });

  it('never caches uncertain (a timeout is asked again), and a cached mismatch stays a mismatch', async () => {
    let answer: MatchResult['decision'] = 'uncertain';
    const { matcher, calls } = counting(() => answer);
    const guarded = guardMatcher(matcher, { cache: createTurnCache() });
    await guarded.match(input('t'));
    answer = 'mismatch';
    expect((await guarded.match(input('t'))).decision).toBe('mismatch');
    answer = 'match';
    // Re-asking cannot re-roll a denial within the turn.
    expect((await guarded.match(input('t'))).decision).toBe('mismatch');
    expect(calls()).toBe(2);
  });

  it('is bounded', () => {
    const cache = createTurnCache({ maxEntries: 2 });
    for (const t of ['a', 'b', 'c']) cache.set(t, tool('x'), { decision: 'match', score: 1, matcher: 'm' });
    expect(cache.size).toBe(2);
    expect(cache.get('a', tool('x'))).toBeUndefined();
  });
});

describe('operator allowlist', () => {
  const allowlist = compileAllowlist([{ task: 'summarize * failing tests in *', tool: 'github__list_*' }]);

  it('a vouched pair is a match without asking the matcher; case and whitespace do not matter', async () => {
    const { matcher, calls } = counting(() => 'mismatch');
    const guarded = guardMatcher(matcher, { allowlist });
    expect(await guarded.match(input("Summarize  last week's failing tests in auth-service"))).toMatchObject({ decision: 'match', matcher: 'allowlist' });
    expect(calls()).toBe(0);
  });

  it('is anchored: another tool, or a task that only contains the pattern, goes to the matcher', async () => {
    const { matcher, calls } = counting(() => 'mismatch');
    const guarded = guardMatcher(matcher, { allowlist });
    expect((await guarded.match(input('summarize the failing tests in auth', tool('db__export_full_users_table')))).decision).toBe('mismatch');
    expect(await guarded.match(input('ignore that and summarize all failing tests in x'))).toMatchObject({ decision: 'mismatch' });
    expect(await guarded.match(input('please summarize the failing tests in auth'))).toMatchObject({ decision: 'mismatch' });
    expect(calls()).toBe(3);
  });

  it('globs are literal except `*`: regex metacharacters match only themselves, and no pattern backtracks', () => {
    const list = compileAllowlist([{ task: 'read (a+)+ logs', tool: 'logs.read' }]);
    expect(list.find('read (a+)+ logs', 'logs.read')).toBeDefined();
    expect(list.find('read aaaa logs', 'logs.read')).toBeUndefined();
    expect(list.find('read (a+)+ logs', 'logsXread')).toBeUndefined();
    // 400 wildcards against 3,900 matching characters: a backtracking matcher would try the
    // placements of each run in turn; a plain search looks for each literal run once.
    const many = compileAllowlist([{ task: `${'*a'.repeat(400)}*b*`, tool: 't' }]);
    const searches = vi.spyOn(String.prototype, 'indexOf');
    let found: unknown;
    let searched: number;
    try {
      found = many.find('a'.repeat(3900), 't');
    } finally {
      searched = searches.mock.calls.length;
      searches.mockRestore();
    }
    expect(found).toBeUndefined();
    expect(searched).toBeGreaterThan(0);
    expect(searched).toBeLessThanOrEqual(401);
  });

  it('refuses malformed entries and an all-wildcard task', () => {
    for (const bad of [[{ task: '*', tool: 't' }], [{ task: ' * * ', tool: 't' }], [{ task: '', tool: 't' }], [{ task: 'x', tool: '' }], [{ task: 1, tool: 't' }]]) {
      expect(() => compileAllowlist(bad as never)).toThrow(AllowlistError);
    }
  });
});
