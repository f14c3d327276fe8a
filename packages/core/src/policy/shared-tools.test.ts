import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors.ts';
import { RulePolicy } from './rule-policy.ts';

const RULES = [{ tool: 'a', verdict: 'allow' as const }];

function problemsOf(sharedTools: unknown): readonly string[] {
  try {
    new RulePolicy({ version: 1, rules: RULES, sharedTools });
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  return [];
}

describe('policy sharedTools', () => {
  it('shares nothing unless the document names it', () => {
    expect(new RulePolicy({ version: 1, rules: RULES }).sharedTools).toBeUndefined();
  });

  it('names, per registered tool, the other agents that may use it; a copy each time', () => {
    const policy = new RulePolicy({ version: 1, rules: RULES, sharedTools: { wire_funds: ['agent-b'], lookup: ['*'] } });
    expect(policy.sharedTools).toEqual({ wire_funds: ['agent-b'], lookup: ['*'] });
    policy.sharedTools!.wire_funds!.push('mallory');
    expect(policy.sharedTools!.wire_funds).toEqual(['agent-b']);
  });

  it('is validated strictly: an empty list, an empty id or a non-list is a problem', () => {
    expect(problemsOf({ wire_funds: [] })).toEqual(['sharedTools.wire_funds: must name at least one agent']);
    expect(problemsOf({ wire_funds: [''] })[0]).toMatch(/^sharedTools\.wire_funds\[0\]: /);
    expect(problemsOf({ wire_funds: 'agent-b' })[0]).toMatch(/^sharedTools\.wire_funds: /);
  });
});
